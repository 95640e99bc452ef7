import { z } from "@hono/zod-openapi";
import { MEDIA_ALT_MAX } from "../../catalog/alt-text";
import { updateMediaAlt } from "../../services/media/update-media";
import type { App } from "../../types";
import { authedRoute, idParam, jsonBody, ok } from "../openapi";
import { MediaSchema } from "../posts/schemas";

export const UpdateMediaRequest = z
  .object({
    alt: z
      .string()
      .max(MEDIA_ALT_MAX)
      .nullable()
      .openapi({
        description: `The alt text: what the image or video shows, for people who cannot see it. At most ${MEDIA_ALT_MAX} characters; null or blank removes it. Scheduling checks it against each enabled network's own limit (X 1,000, Pinterest 500, …).`,
        example: "A golden retriever catching a red frisbee on a beach at sunset.",
      }),
  })
  .openapi("UpdateMediaRequest");

const route = authedRoute({
  method: "patch",
  scope: "publish",
  path: "/api/media/{media}",
  operationId: "updateMedia",
  tags: ["Media"],
  summary: "Set or clear a media item's alt text",
  description:
    "The media item (any of this workspace's, attached or a signed-upload asset) with its new `alt`; every post showing it shows the new text. 404 for an id outside the workspace.",
  request: { params: idParam("media", "Media id (UUID)."), ...jsonBody(UpdateMediaRequest) },
  responses: { 200: ok(MediaSchema, "The media item.") },
});

export function registerUpdateMedia(app: App) {
  app.openapi(route, async (c) =>
    c.json(await updateMediaAlt(c.get("workspace"), c.req.valid("param").media, c.req.valid("json")), 200),
  );
}
