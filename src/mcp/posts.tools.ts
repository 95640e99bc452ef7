import { z } from "zod";
import { CreatePostRequest, ListPostsQuery, UpdatePostRequest } from "../routes/posts/schemas";
import { getPostMetrics } from "../services/metrics/get-post-metrics";
import { createPost } from "../services/posts/create-post";
import { deletePost } from "../services/posts/delete-post";
import { duplicatePost } from "../services/posts/duplicate-post";
import { getPost } from "../services/posts/get-post";
import { listPosts } from "../services/posts/list-posts";
import { previewPost } from "../services/posts/preview-post";
import { updatePost } from "../services/posts/update-post";
import { defineTool } from "./tool";

const postId = z.uuid().describe("Id (UUID) of the post.");
const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true } as const;

/** The REST request schemas carry `.openapi` metadata; tools restate each field with `.describe()`. */
const create = CreatePostRequest.shape;
const update = UpdatePostRequest.shape;

export const postTools = [
  defineTool({
    name: "list-posts-tool",
    title: "List posts",
    description:
      "Lists posts of the workspace, 15 per page, latest scheduled first, in the REST paginator shape {data, links, meta}.",
    input: {
      page: z.number().int().min(1).optional().describe("Page number, default 1."),
      status: z
        .enum(["draft", "scheduled", "publishing", "published", "partially_published", "failed"])
        .optional()
        .describe("Only posts with this status."),
      label_id: z.uuid().optional().describe("Only posts carrying this label."),
      social_account_id: z.uuid().optional().describe("Only posts with a row for this social account."),
      scheduled_from: ListPostsQuery.shape.scheduled_from.describe(
        "Only posts scheduled at or after this time (ISO 8601 with Z or an offset; a bare Y-m-d H:i:s or Y-m-d is UTC).",
      ),
      scheduled_to: ListPostsQuery.shape.scheduled_to.describe(
        "Only posts scheduled before this time (not at it); same formats as scheduled_from.",
      ),
    },
    annotations: READ,
    run: (ctx, input) =>
      listPosts(ctx, {
        page: (input.page as number | undefined) ?? 1,
        status: input.status as never,
        label_id: input.label_id as string | undefined,
        social_account_id: input.social_account_id as string | undefined,
        scheduled_from: input.scheduled_from as string | undefined,
        scheduled_to: input.scheduled_to as string | undefined,
      }),
  }),
  defineTool({
    name: "get-post-tool",
    title: "Get post",
    description: "Returns one post with its platforms (status, URLs, errors), labels and media.",
    input: { post_id: postId },
    annotations: READ,
    run: (ctx, { post_id }) => getPost(ctx, post_id as string),
  }),
  defineTool({
    name: "create-post-tool",
    scope: "publish",
    title: "Create post",
    description:
      "Creates a draft post. Each platforms[] entry pairs a social account (see list-social-accounts-tool) with a content_type valid for its platform (see list-content-types-tool). Schedule or publish it afterwards with update-post-tool or publish-post-tool.",
    input: {
      platforms: create.platforms.describe(
        "Targets: [{social_account_id, content_type, content?, thread?, first_comment?}], at least one, each account once. content: this row's own text (null: the post's). thread: [{content, media?: [{id}]}] follow-ups published as replies in order (X, Bluesky, Threads, Mastodon). first_comment: posted under the published post (Facebook, Instagram, LinkedIn, YouTube; a reply on X, Bluesky, Threads, Mastodon). Limits per network: list-content-types-tool. Per-platform meta is set later with update-post-tool.",
      ),
      content: create.content.describe("Post body shared by all platforms, at most 10000 characters."),
      media: create.media.describe("Media of this workspace by id: [{id}]."),
      scheduled_at: create.scheduled_at.describe(
        "ISO 8601 in the future (a bare date-time is read as UTC). Default: today 09:00 UTC.",
      ),
      queue_id: create.queue_id.describe(
        'A queue id or "default": the post is created scheduled in the queue\'s next free slot (not with scheduled_at).',
      ),
      queue_position: create.queue_position.describe(
        'With queue_id: "last" (default, the next free slot) or "next" (the earliest slot; queued posts move down one).',
      ),
      reservation_id: create.reservation_id.describe(
        "A live reservation from reserve-queue-slot-tool: the post is created scheduled in exactly that slot.",
      ),
      repeat: create.repeat.describe(
        'Repeats the post: {every: 1-365, unit: "day"|"week"|"month", until?, count? (1-100, the first included), variations? (2-20 texts used in turn after the first), time_zone? (IANA, default UTC)}. Each later occurrence is its own post (repeat_of names the first), created when the previous one settles.',
      ),
      label_ids: create.label_ids.describe("Label ids of this workspace."),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (ctx, input) => createPost(ctx, input as never),
  }),
  defineTool({
    name: "update-post-tool",
    scope: "publish",
    title: "Update post",
    description:
      "Edits a post: content, signature_id (appends a signature to the content), scheduled_at, media (replaces), label_ids (replaces), platforms[] ({id, enabled?, content_type?, meta?, content?, thread?, first_comment?, signature_id?} for an existing row — meta such as Pinterest board_id or TikTok privacy_level is shallow-merged, null removes a key; list-content-types-tool names each network's meta_fields; content is the row's own text, thread its replies, first_comment the comment under the post, signature_id appends a signature to the row's own text — or {social_account_id, content_type, …} to add a target) and status (draft | scheduled | publishing).",
    input: {
      post_id: postId,
      status: update.status.describe(
        "draft, scheduled (validates every enabled platform's limits) or publishing (queues the enabled rows now).",
      ),
      content: update.content.describe("New post body, at most 10000 characters."),
      signature_id: update.signature_id.describe(
        "A signature of this workspace appended (after a blank line) to the post's content.",
      ),
      scheduled_at: update.scheduled_at.describe("New schedule time, ISO 8601; null unschedules."),
      queue_id: update.queue_id.describe(
        'With status scheduled: the next free slot of this queue (an id or "default") instead of scheduled_at.',
      ),
      queue_position: update.queue_position.describe(
        'With queue_id: "last" (default, the next free slot) or "next" (the earliest slot; queued posts move down one).',
      ),
      reservation_id: update.reservation_id.describe(
        "With status scheduled: exactly the slot of this live reservation (reserve-queue-slot-tool), once.",
      ),
      repeat: update.repeat.describe(
        "Replaces the post's repeat rule (as in create-post-tool); null stops the series after this occurrence.",
      ),
      media: update.media.describe("Replaces the media list: [{id}] of this workspace's media."),
      label_ids: update.label_ids.describe("Replaces the labels."),
      platforms: update.platforms.describe("Row changes or new targets, as described above."),
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    run: (ctx, { post_id, ...input }) => updatePost(ctx, post_id as string, input as never),
  }),
  defineTool({
    name: "publish-post-tool",
    scope: "publish",
    title: "Publish post now",
    description:
      "Publishes a post now (status=publishing): every enabled, not yet published platform is queued. Follow progress with get-post-tool.",
    input: { post_id: postId },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    run: (ctx, { post_id }) => updatePost(ctx, post_id as string, { status: "publishing" }),
  }),
  defineTool({
    name: "delete-post-tool",
    scope: "publish",
    title: "Delete post",
    description: "Deletes a post (not while it is publishing). Nothing is deleted on the networks.",
    input: { post_id: postId },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
    run: async (ctx, { post_id }) => {
      await deletePost(ctx, post_id as string);
      return { deleted: true, id: post_id };
    },
  }),
  defineTool({
    name: "duplicate-post-tool",
    scope: "publish",
    title: "Duplicate post",
    description:
      "Makes a new draft with a post's content, targets (row texts, threads, first comments, meta), media and labels; no time, no queue, no repeat rule. Works on published posts too. Answers the new draft.",
    input: { post_id: postId },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
    run: (ctx, { post_id }) => duplicatePost(ctx, post_id as string),
  }),
  defineTool({
    name: "preview-post-tool",
    title: "Preview post",
    description:
      "Per enabled platform: content length as that platform counts it, its cap, media count and cap, and the problems that would stop it publishing (empty when fine).",
    input: { post_id: postId },
    annotations: READ,
    run: (ctx, { post_id }) => previewPost(ctx, post_id as string),
  }),
];

export const metricsTools = [
  defineTool({
    name: "get-post-metrics-tool",
    title: "Get post metrics",
    description:
      "Engagement metrics per enabled platform of a published post ([{label, value}]), or {unsupported: true, reason} (not_published, platform_not_supported, api_error, platform_access_denied). Cached 5 minutes per platform.",
    input: { post_id: postId },
    annotations: { ...READ, openWorldHint: true },
    run: (ctx, { post_id }) => getPostMetrics(ctx, post_id as string),
  }),
];
