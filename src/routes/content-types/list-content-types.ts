import { z } from "@hono/zod-openapi";
import { FIRST_COMMENT_MAX, supportsFirstComment, supportsThread } from "../../catalog/follow-ups";
import { CATALOG_WITH_MEDIA_RULES } from "../../catalog/media-specs";
import { metaFieldsOf } from "../../catalog/meta-fields";
import { CONTENT_TYPES, PLATFORMS } from "../../catalog/platforms";
import { THREAD_ITEMS_MAX } from "../../lib/bounds";
import type { App } from "../../types";
import { authedRoute, ok } from "../openapi";

const MediaKind = z.enum(["image", "video"]);
const bound = (what: string) => z.number().nullable().describe(`${what}; null when the network sets none.`);
const ImageRules = z
  .object({
    formats: z.array(z.string()).describe("Image types taken as they are; others are re-encoded to the first."),
    max_bytes: bound("Largest file in bytes"),
    max_pixels: bound("Largest width × height"),
    max_long_side: bound("Longest side in pixels"),
    max_short_side: bound("Longest allowed shorter side in pixels"),
    min_aspect_ratio: bound("Smallest width / height"),
    max_aspect_ratio: bound("Largest width / height"),
    fitted: z.literal(true).describe("Images over a byte or pixel limit are downscaled/re-encoded, not refused."),
  })
  .openapi("MediaImageRules");
const GifRules = z
  .object({ max_bytes: bound("Largest GIF in bytes"), alone: z.boolean().describe("A GIF must be the only item.") })
  .openapi("MediaGifRules");
const VideoRules = z
  .object({
    formats: z.array(z.string()),
    max_bytes: bound("Largest file in bytes"),
    min_bytes: bound("Smallest file in bytes"),
    min_duration_seconds: bound("Shortest duration"),
    max_duration_seconds: bound("Longest duration"),
    min_aspect_ratio: bound("Smallest width / height as displayed"),
    max_aspect_ratio: bound("Largest width / height as displayed"),
    min_short_side: bound("Smallest shorter side in pixels"),
    min_long_side: bound("Smallest longer side in pixels"),
    max_long_side: bound("Largest longer side in pixels"),
    max_pixels: bound("Largest width × height"),
  })
  .openapi("MediaVideoRules");
const MediaRules = z
  .object({
    max_images: z.number().int(),
    max_videos: z.number().int(),
    mix_images_and_videos: z.boolean(),
    image: ImageRules.nullable(),
    gif: GifRules.nullable().describe("null: GIFs are refused."),
    video: VideoRules.nullable(),
  })
  .openapi("MediaRules");
const MetaField = z
  .object({
    name: z.string(),
    type: z.enum(["string", "url", "integer", "number", "boolean", "enum", "string_list"]),
    description: z.string(),
    content_types: z.array(z.enum(CONTENT_TYPES)).optional().describe("Only for these content types."),
    max_length: z.number().int().optional().describe("Strings: most characters; lists: of each item."),
    values: z.array(z.string()).optional().describe("`enum`: the accepted values."),
    max_items: z.number().int().optional().describe("`string_list`: most items."),
    min: z.number().optional().describe("Numbers: the smallest value."),
    default: z
      .union([z.string(), z.number(), z.boolean()])
      .optional()
      .describe("The value used when the field is not set (e.g. YouTube `privacy_status`: `public`)."),
  })
  .openapi("MetaField");
const ContentTypeItem = z
  .object({
    value: z.enum(CONTENT_TYPES),
    label: z.string(),
    description: z.string(),
    max_media_count: z.number().int(),
    requires_media: z.boolean(),
    allowed_media_types: z.array(MediaKind),
    media_rules: MediaRules.describe("The network's media rules for this content type (docs/media-rules.md)."),
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
    thread_max_items: z
      .number()
      .int()
      .nullable()
      .describe("Issue 20: most `platforms[].thread` items of a row; null when the network takes no thread."),
    first_comment_max_length: z
      .number()
      .int()
      .nullable()
      .describe(
        "Issue 20: longest `platforms[].first_comment`, counted as the network counts; null when it takes none.",
      ),
    meta_fields: z
      .array(MetaField)
      .describe("Issue 20: the `platforms[].meta` keys this network reads, checked when set (PUT /api/posts)."),
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

const body = {
  platforms: CATALOG_WITH_MEDIA_RULES.map((p) => ({
    ...p,
    thread_max_items: supportsThread(p.platform) ? THREAD_ITEMS_MAX : null,
    first_comment_max_length: supportsFirstComment(p.platform)
      ? (FIRST_COMMENT_MAX[p.platform] ?? p.max_content_length)
      : null,
    meta_fields: [...metaFieldsOf(p.platform)],
  })),
};
export const registerListContentTypes = (app: App) => app.openapi(route, (c) => c.json(body, 200));
