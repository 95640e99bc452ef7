import { z } from "zod";
import { MEDIA_ALT_MAX } from "../catalog/alt-text";
import { MEDIA_URLS_MAX } from "../lib/bounds";
import { attachMediaFromUrls } from "../services/media/attach-media-from-urls";
import { updateMediaAlt } from "../services/media/update-media";
import { attachUploadToPost } from "../services/uploads/attach-upload";
import { issueUpload } from "../services/uploads/issue-upload";
import { defineTool } from "./tool";

const postId = z.uuid().describe("Id (UUID) of the post to attach the media to.");

export const mediaTools = [
  defineTool({
    name: "attach-media-from-url-tool",
    scope: "publish",
    title: "Attach media from URLs",
    description:
      "Downloads 1–10 public http(s) URLs (JPEG, PNG, GIF, WebP images up to 10 MB; MP4, MOV videos up to 1 GB) and appends them to the post's media. PNG and WebP become JPEG. Returns {post, attached_count, failed_urls}; unreachable, wrong-type, too-large or not-accepted URLs are listed in failed_urls.",
    input: {
      post_id: postId,
      urls: z
        .array(z.string())
        .min(1)
        .max(MEDIA_URLS_MAX)
        .describe(`Public http(s) URLs of the files, at most ${MEDIA_URLS_MAX}.`),
      alts: z
        .array(z.string().max(MEDIA_ALT_MAX).nullable())
        .max(MEDIA_URLS_MAX)
        .optional()
        .describe(
          `Optional alt text of each file, in the order of urls (at most ${MEDIA_ALT_MAX} characters each; null: none).`,
        ),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: (ctx, input) =>
      attachMediaFromUrls(
        ctx,
        input.post_id as string,
        input.urls as string[],
        (input.alts as (string | null)[] | undefined) ?? [],
      ),
  }),
  defineTool({
    name: "request-media-upload-tool",
    scope: "publish",
    title: "Request a media upload URL",
    description:
      'Issues a one-shot signed upload URL (valid 15 minutes). POST the file to upload_url as multipart/form-data in the field named field_name ("media") — optionally with a text field "alt", the alt text — without any Authorization header; the answer carries media_id. Then call attach-media-from-upload-tool with the same upload_token to attach it to a post.',
    input: {},
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (ctx) => issueUpload(ctx),
  }),
  defineTool({
    name: "attach-media-from-upload-tool",
    scope: "publish",
    title: "Attach uploaded media",
    description:
      "Attaches the media created by a signed upload (request-media-upload-tool) to a post. Attaching the same upload to the same post again changes nothing. Returns {post}.",
    input: {
      post_id: postId,
      upload_token: z.string().describe("The upload_token returned by request-media-upload-tool."),
      alt: z
        .string()
        .max(MEDIA_ALT_MAX)
        .nullable()
        .optional()
        .describe(
          `Optional alt text of the file (at most ${MEDIA_ALT_MAX} characters); replaces one sent with the upload.`,
        ),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: (ctx, input) =>
      attachUploadToPost(ctx, {
        post_id: input.post_id as string,
        upload_token: input.upload_token as string,
        alt: input.alt as string | null | undefined,
      }),
  }),
  defineTool({
    name: "update-media-tool",
    scope: "publish",
    title: "Set a media item's alt text",
    description: `Sets or clears (null) the alt text of one of the workspace's media items — what the image or video shows, for people who cannot see it; at most ${MEDIA_ALT_MAX} characters. Every post showing the item shows the new text; scheduling checks it against each network's own limit (X 1,000, Pinterest 500, …). Returns the Media.`,
    input: {
      media_id: z.uuid().describe("Id (UUID) of the media item."),
      alt: z.string().max(MEDIA_ALT_MAX).nullable().describe("The alt text, or null to remove it."),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: (ctx, input) => updateMediaAlt(ctx, input.media_id as string, { alt: input.alt as string | null }),
  }),
];
