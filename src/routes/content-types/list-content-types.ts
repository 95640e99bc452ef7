import { z } from "@hono/zod-openapi";
import { CATALOG, CONTENT_TYPES, PLATFORMS } from "../../catalog/platforms";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";

const MediaKind = z.enum(["image", "video"]);
const ContentTypeItem = z
  .object({
    value: z.enum(CONTENT_TYPES),
    label: z.string(),
    description: z.string(),
    max_media_count: z.number().int(),
    requires_media: z.boolean(),
    allowed_media_types: z.array(MediaKind),
  })
  .openapi("ContentTypeItem");
const PlatformCatalogEntry = z
  .object({
    platform: z.enum(PLATFORMS),
    label: z.string(),
    max_content_length: z.number().int(),
    recommended_content_length: z.number().int(),
    allowed_media_types: z.array(MediaKind),
    default_content_type: z.enum(CONTENT_TYPES),
    content_types: z.array(ContentTypeItem),
  })
  .openapi("PlatformCatalogEntry");
const ContentTypesResponse = z.object({ platforms: z.array(PlatformCatalogEntry) }).openapi("ContentTypesResponse");

const route = authedRoute({
  method: "get",
  path: "/api/content-types",
  operationId: "listContentTypes",
  tags: ["Catalog"],
  summary: "Platforms, their content types, and length and media limits",
  responses: { 200: ok(ContentTypesResponse, "The catalog.") },
});

const body = { platforms: [...CATALOG] };
export const registerListContentTypes = (app: App) => app.openapi(route, (c) => c.json(body, 200));
