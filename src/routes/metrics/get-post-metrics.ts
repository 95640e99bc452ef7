import { z } from "@hono/zod-openapi";
import { getPostMetrics } from "../../services/metrics/get-post-metrics";
import type { App } from "../../types";
import { authedRoute, idParam, ok } from "../openapi";

const MetricSchema = z
  .object({
    label: z
      .string()
      .openapi({ description: "Metric name, e.g. `Likes` (labels per platform: decisions §11).", example: "Likes" }),
    value: z.number().openapi({ description: "Current value reported by the platform.", example: 42 }),
  })
  .openapi("Metric");

const UnsupportedMetricsSchema = z
  .object({
    unsupported: z.literal(true).openapi({ description: "Always true: no metrics for this entry." }),
    reason: z.enum(["not_published", "platform_not_supported", "api_error", "platform_access_denied"]).openapi({
      description:
        "`not_published`: the entry has not been published; `platform_not_supported`: tiktok and linkedin have no post-level metrics; `api_error`: the platform call failed (not cached, try again); `platform_access_denied`: the network does not let this app read the post's metrics (X on an access tier without read access).",
    }),
  })
  .openapi("UnsupportedMetrics");

const MetricsEntrySchema = z
  .object({
    post_platform_id: z.uuid().openapi({ description: "Id of the post-platform row." }),
    platform: z.string().openapi({ description: "Platform identifier.", example: "bluesky" }),
    status: z
      .enum(["pending", "publishing", "published", "failed"])
      .openapi({ description: "Publish status of the row." }),
    platform_post_id: z.string().nullable().openapi({ description: "The network's id of the post, once published." }),
    platform_url: z.string().nullable().openapi({ description: "Public URL of the post, once published." }),
    metrics: z.union([z.array(MetricSchema), UnsupportedMetricsSchema]).openapi({
      description: "Metric items, or why there are none. Successful answers are cached for 5 minutes per row.",
    }),
  })
  .openapi("MetricsEntry");

export const PostMetricsSchema = z
  .object({
    post_id: z.uuid().openapi({ description: "The post." }),
    platforms: z.array(MetricsEntrySchema).openapi({ description: "One entry per enabled platform of the post." }),
  })
  .openapi("PostMetrics");

const route = authedRoute({
  method: "get",
  path: "/api/posts/{post}/metrics",
  operationId: "getPostMetrics",
  tags: ["Metrics"],
  summary: "Engagement metrics of a post, per enabled platform (cached 5 minutes per platform)",
  request: { params: idParam("post", "Post id (UUID).") },
  responses: { 200: ok(PostMetricsSchema, "Metrics per enabled platform.") },
});

export const registerGetPostMetrics = (app: App) =>
  app.openapi(route, async (c) => c.json(await getPostMetrics(c.get("workspace"), c.req.valid("param").post), 200));
