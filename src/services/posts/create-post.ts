import type { WorkspaceContext } from "../../context";
import { postLabels, postMedia, postPlatforms, posts } from "../../db/schema";
import { ErrorBag } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { todayAtNineUtc } from "../../lib/time";
import type { PostResource } from "../../presenters/post";
import { getPost } from "./get-post";
import {
  type AccountRow,
  checkDistinct,
  checkLabels,
  checkMedia,
  checkTarget,
  loadReferences,
  parseScheduledAt,
  SCHEDULED_AT_AFTER_NOW,
} from "./references";

export interface CreatePostInput {
  platforms: { social_account_id: string; content_type: string }[];
  content?: string | null;
  media?: { id: string }[];
  /** ISO 8601 (or bare `Y-m-d H:i:s`, read as UTC); null for an unscheduled draft. */
  scheduled_at?: string | null;
  label_ids?: string[];
}

/**
 * Creates a draft: one `pending`, enabled row per target, with a snapshot of the account's name, handle and avatar.
 *
 * `scheduled_at`: when given it must be in the future. When omitted it defaults to today 09:00 UTC and is stored
 * as is, even if 09:00 has already passed today — a draft is not scheduled, and `PUT status=scheduled` later
 * requires a future time anyway.
 */
export async function createPost(ctx: WorkspaceContext, input: CreatePostInput): Promise<PostResource> {
  const now = ctx.now();
  const bag = new ErrorBag();
  const mediaItems = input.media ?? [];
  const labelIds = input.label_ids ?? [];

  let scheduledAt = parseScheduledAt(bag, input.scheduled_at);
  if (typeof scheduledAt === "number" && scheduledAt <= now) bag.add("scheduled_at", SCHEDULED_AT_AFTER_NOW);
  if (input.scheduled_at === undefined) scheduledAt = todayAtNineUtc(now);

  checkDistinct(
    bag,
    "platforms",
    input.platforms.map((p) => p.social_account_id),
    ".social_account_id",
  );
  const refs = await loadReferences(ctx, {
    accountIds: input.platforms.map((p) => p.social_account_id),
    labelIds,
    mediaIds: mediaItems.map((m) => m.id),
  });
  const accounts: (AccountRow | null)[] = input.platforms.map((p, i) => checkTarget(bag, refs, `platforms.${i}`, p));
  const labelRows = checkLabels(bag, refs, labelIds);
  const mediaRows = checkMedia(bag, refs, mediaItems);
  bag.throwIfAny();

  const postId = newId();
  const post = {
    id: postId,
    workspaceId: ctx.workspaceId,
    content: input.content ?? "",
    status: "draft" as const,
    scheduledAt: scheduledAt ?? null,
    publishedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const platformRows = input.platforms.map((p, i) => {
    const account = accounts[i]!;
    return {
      id: newId(),
      postId,
      socialAccountId: account.id,
      platform: account.platform,
      contentType: p.content_type,
      status: "pending" as const,
      enabled: true,
      meta: {},
      displayName: account.displayName,
      displayUsername: account.username,
      displayAvatar: account.avatarUrl ?? "",
      position: i,
      createdAt: now,
      updatedAt: now,
    };
  });
  await ctx.db.batch([
    ctx.db.insert(posts).values(post),
    ctx.db.insert(postPlatforms).values(platformRows),
    ...(mediaRows.length
      ? [ctx.db.insert(postMedia).values(mediaRows.map((m, i) => ({ postId, mediaId: m.id, position: i })))]
      : []),
    ...(labelRows.length ? [ctx.db.insert(postLabels).values(labelRows.map((l) => ({ postId, labelId: l.id })))] : []),
  ]);
  return getPost(ctx, postId);
}
