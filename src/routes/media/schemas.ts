import { z } from "@hono/zod-openapi";
import { MEDIA_ALT_MAX } from "../../catalog/alt-text";

/** `multipart/form-data` with one file field `media` (documented only: the body is streamed, never validated whole). */
export const MediaUploadForm = z
  .object({
    media: z.string().openapi({
      type: "string",
      format: "binary",
      description:
        "The file. Type detected from its bytes: image/jpeg, image/png, image/gif, image/webp (10 MB) or video/mp4, video/quicktime (1 GB). PNG and WebP are stored as JPEG (quality 100).",
    }),
    alt: z
      .string()
      .max(MEDIA_ALT_MAX)
      .optional()
      .openapi({
        description: `Optional alt text of the file (at most ${MEDIA_ALT_MAX} characters), before or after the file part; blank means none. Sent to the networks that take one.`,
      }),
  })
  .openapi("MediaUploadForm");

export const multipartBody = (description: string) => ({
  body: {
    required: true,
    description,
    content: { "multipart/form-data": { schema: MediaUploadForm } },
  },
});
