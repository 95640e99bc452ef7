import { z } from "@hono/zod-openapi";
import { listConnectLinks } from "../../services/connect/list-connect-links";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";
import { ConnectLinkPageSchema } from "./schemas";

const route = authedRoute({
  method: "get",
  // Like creating one: link URLs and redirect targets are the workspace owner's business (docs/connect.md).
  scope: "full",
  path: "/api/connect-links",
  operationId: "listConnectLinks",
  tags: ["Connect accounts"],
  summary: "The workspace's connect links (never their tokens), newest first, 50 per page",
  request: {
    query: z.object({
      page: z.coerce.number().int().min(1).max(100_000).optional().openapi({ description: "Page, from 1." }),
    }),
  },
  responses: { 200: ok(ConnectLinkPageSchema, "One page of links.") },
});

export function registerListConnectLinks(app: App) {
  app.openapi(route, async (c) =>
    c.json(await listConnectLinks(c.get("workspace"), c.req.valid("query").page ?? 1), 200),
  );
}
