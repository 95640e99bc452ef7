import { and, eq, inArray, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { RuleMedia } from "../../catalog/media-rules";
import { checkMetaPatch } from "../../catalog/meta-fields";
import type { WorkspaceContext } from "../../context";
import { eqFilterOnly, inJsonArray, insertJsonRows, updateJsonRows } from "../../db/json-params";
import {
  labels,
  media,
  type PostPlatformStatus,
  type PostStatus,
  postLabels,
  postMedia,
  postPlatforms,
  posts,
  signatures,
  socialAccounts,
} from "../../db/schema";
import { PLATFORM_META_MAX_BYTES, POST_TARGETS_MAX } from "../../lib/bounds";
import { conflict, ErrorBag, type FieldErrors, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { errorFields, log } from "../../lib/logger";
import { type PostResource, presentPost } from "../../presenters/post";
import { enqueuePublishMessages } from "../../publishing/messages";
import { deleteReleasedObjects, releaseOrphansStatement, stillUsedPathsStatement } from "../media/release-media";
import {
  asksForSlot,
  checkQueueChoice,
  freeSlotStatement,
  QUEUE_ID_NEEDS_SCHEDULED,
  type QueueChoice,
  type QueueChoiceRow,
  queueChoiceOf,
  queueChoiceRead,
  RESERVATION_NEEDS_SCHEDULED,
  type SlotTake,
  slotGuardFailure,
  takeSlotStatements,
} from "../queues/take-slot";
import { postEvent } from "../webhooks/outbox";
import { compareCodePoints } from "./create-post";
import {
  type AccountRow,
  attribute,
  checkContentType,
  checkDistinct,
  checkLabels,
  checkMedia,
  checkTarget,
  type LabelRow,
  type MediaRow,
  parseScheduledAt,
  type References,
} from "./references";
import { type RepeatInput, replacedRepeat, type StoredRepeat } from "./repeat-rule";
import { appendSignature, applyRowTexts, type RowTextColumns, type RowTextsInput, threadMediaIds } from "./row-texts";
import { checkSchedule, NO_ENABLED_PLATFORM, textLimitsOf } from "./schedule-rules";

export interface UpdatePostPlatformInput extends RowTextsInput {
  /** Addresses an existing row of this post. */
  id?: string;
  enabled?: boolean;
  content_type?: string;
  /** Shallow-merged into the row's meta; a null value removes the key. */
  meta?: Record<string, unknown>;
  /** Without `id`: adds a target (with `content_type`). */
  social_account_id?: string;
  /** Issue 20: a signature appended to this row's own text. */
  signature_id?: string;
}

export interface UpdatePostInput {
  status?: "draft" | "scheduled" | "publishing";
  content?: string | null;
  /** Issue 20: a signature appended to the post's content. */
  signature_id?: string;
  scheduled_at?: string | null;
  /** Issue 37: with `status: "scheduled"`, the post takes this queue's next free slot (`"default"`: the default). */
  queue_id?: string;
  /** Issue 37: `"next"` takes the queue's earliest slot, moving the queued posts down one. */
  queue_position?: "last" | "next";
  /** Issue 37: with `status: "scheduled"`, the post takes exactly this reservation's slot. */
  reservation_id?: string;
  /** Issue 37: the series rule replaced (null removes it). */
  repeat?: RepeatInput | null;
  media?: { id: string }[];
  label_ids?: string[];
  platforms?: UpdatePostPlatformInput[];
}

/**
 * An update request as far as it is well formed (see `CreatePostDraft`): array items that failed the shape check
 * are holes (`undefined`), fields that failed it are absent and named in `malformed`, so the rules that read them
 * (content length, media kinds) are not run against the post's old values.
 */
export interface UpdatePostDraft {
  status?: UpdatePostInput["status"];
  content?: string | null;
  signature_id?: string;
  scheduled_at?: string | null;
  queue_id?: string;
  queue_position?: "last" | "next";
  reservation_id?: string;
  media?: ({ id: string } | undefined)[];
  label_ids?: (string | undefined)[];
  platforms?: (UpdatePostPlatformInput | undefined)[];
}

export const PUBLISHED_MESSAGE = "Cannot edit a published post.";
export const PUBLISHING_MESSAGE = "The post is being published and cannot be changed.";
export const CHANGED_MESSAGE = "The post was changed by another request. Reload it and try again.";
export const tooManyTargetsMessage = (count: number) =>
  `A post can target at most ${POST_TARGETS_MAX} accounts (${count} after this update).`;

/** Statuses a post may move to each target status from (decisions §6; documented in docs/posts.md). */
const FROM: Record<NonNullable<UpdatePostInput["status"]>, PostStatus[]> = {
  draft: ["draft", "scheduled", "failed"],
  scheduled: ["draft", "scheduled", "failed", "partially_published"],
  publishing: ["draft", "scheduled", "failed", "partially_published"],
};

type PlatformRow = typeof postPlatforms.$inferSelect;

interface PlannedRow {
  row: PlatformRow;
  changed: boolean;
  isNew: boolean;
}

/**
 * Everything an update reads, as read in its one read round trip (`loadUpdateState`): the post, its platform rows,
 * its attached media (full rows, in position order) and labels, and the rows the request names — the accounts it
 * adds (with the accounts of the post's rows), the labels and media it names (with those the post and its threads
 * show) and the signatures it applies. The checks and the answer are built from these; nothing is read again.
 */
export interface PostState {
  post: typeof posts.$inferSelect;
  rows: PlatformRow[];
  /** Attached media in position order. */
  attached: MediaRow[];
  /** The post's labels as it stands. */
  labels: LabelRow[];
  refs: References;
  signatures: Map<string, string>;
  /** Issue 37: the queue (or reservation) asked for, with its held count; null when none of this workspace's. */
  queue: QueueChoice | null;
}

/**
 * Reads the post's state and every row the request names in ONE D1 batch (issue 28: far from the primary each
 * sequential call is a cross-region round trip); 404 when the post is absent or elsewhere, 422 when published, 409
 * while publishing. Each id list is one bound JSON array, so the batch is five statements (six with a signature)
 * whatever the request holds; each looks its rows up by key (the ids named, united with the post's own), never by
 * scanning the workspace.
 */
export async function loadUpdateState(
  ctx: WorkspaceContext,
  postId: string,
  input: UpdatePostDraft,
): Promise<PostState> {
  const ws = ctx.workspaceId;
  const present = (list: (string | undefined)[]) => [...new Set(list.filter((id): id is string => id !== undefined))];
  const platformInputs = input.platforms ?? [];
  const additions = platformInputs.filter((p) => p !== undefined && p.id === undefined);
  const accountIds = present(additions.map((p) => p?.social_account_id));
  const labelIds = present(input.label_ids ?? []);
  const mediaIds = present([...(input.media ?? []).map((m) => m?.id), ...threadMediaIds(platformInputs)]);
  const signatureIds = present([input.signature_id, ...platformInputs.map((p) => p?.signature_id)]);
  const threadMediaOfPost = sql`SELECT tm.value FROM post_platforms pp, json_each(pp.thread) ti,
    json_each(ti.value, '$.media') tm WHERE pp.post_id = ${postId} AND pp.thread IS NOT NULL`;
  const signatureRead = ctx.db
    .select({ id: signatures.id, content: signatures.content })
    .from(signatures)
    .where(and(inJsonArray(signatures.id, signatureIds), eqFilterOnly(signatures.workspaceId, ws)));
  const [post, rows, accounts, labelRows, mediaRows, ...optional] = await ctx.db.batch([
    ctx.db
      .select()
      .from(posts)
      .where(and(eq(posts.id, postId), eq(posts.workspaceId, ws))),
    ctx.db.select().from(postPlatforms).where(eq(postPlatforms.postId, postId)),
    ctx.db
      .select()
      .from(socialAccounts)
      .where(
        and(
          sql`${socialAccounts.id} IN (SELECT value FROM json_each(${JSON.stringify(accountIds)})
            UNION SELECT social_account_id FROM post_platforms WHERE post_id = ${postId})`,
          eqFilterOnly(socialAccounts.workspaceId, ws),
        ),
      ),
    ctx.db
      .select({ label: labels, onPost: postLabels.postId })
      .from(labels)
      .leftJoin(postLabels, and(eq(postLabels.labelId, labels.id), eq(postLabels.postId, postId)))
      .where(
        and(
          sql`${labels.id} IN (SELECT value FROM json_each(${JSON.stringify(labelIds)})
            UNION SELECT label_id FROM post_labels WHERE post_id = ${postId})`,
          eqFilterOnly(labels.workspaceId, ws),
        ),
      ),
    ctx.db
      .select({ media, position: postMedia.position })
      .from(media)
      .leftJoin(postMedia, and(eq(postMedia.mediaId, media.id), eq(postMedia.postId, postId)))
      .where(
        and(
          sql`${media.id} IN (SELECT value FROM json_each(${JSON.stringify(mediaIds)})
            UNION SELECT media_id FROM post_media WHERE post_id = ${postId} UNION ${threadMediaOfPost})`,
          eqFilterOnly(media.workspaceId, ws),
        ),
      ),
    ...(signatureIds.length ? [signatureRead] : []),
    ...(asksForSlot(input) ? [queueChoiceRead(ctx, input)] : []),
  ]);
  const signatureRows = (signatureIds.length ? optional.shift() : undefined) as
    | { id: string; content: string }[]
    | undefined;
  const queueRows = (asksForSlot(input) ? optional.shift() : undefined) as QueueChoiceRow[] | undefined;
  const postRow = post[0];
  if (!postRow) throw notFound();
  guardEditable(postRow.status);
  return {
    post: postRow,
    rows,
    attached: mediaRows
      .filter((m) => m.position !== null)
      .sort((a, b) => a.position! - b.position!)
      .map((m) => m.media),
    labels: labelRows.filter((l) => l.onPost !== null).map((l) => l.label),
    refs: {
      accounts: new Map(accounts.map((a) => [a.id, a])),
      labels: new Map(labelRows.map((l) => [l.label.id, l.label])),
      media: new Map(mediaRows.map((m) => [m.media.id, m.media])),
    },
    signatures: new Map((signatureRows ?? []).map((r) => [r.id, r.content])),
    queue: queueRows ? queueChoiceOf(queueRows, input) : null,
  };
}

export interface UpdatePlan {
  target: UpdatePostInput["status"];
  nextStatus: PostStatus;
  nextContent: string | null;
  nextScheduledAt: number | null;
  planned: Map<string, PlannedRow>;
  labelRows: LabelRow[] | null;
  mediaRows: MediaRow[] | null;
  /** Issue 37: the slot the post takes: its queue, how, and the times it may get, earliest first. */
  queued: SlotTake | null;
  /** Issue 37: the post leaves its queue slot (back to draft, published now, or given a time by hand). */
  freesSlot: boolean;
}

/**
 * Every check of an update, collected into `bag` (one round: references, transition, targets and the schedule
 * rules on the post as it will be), on the state `loadUpdateState` read: no statement of its own.
 * `malformed` names the top-level fields that failed the shape check: they count as not sent, and the rules that
 * read them are skipped.
 */
export function checkUpdatePost(
  ctx: WorkspaceContext,
  state: PostState,
  input: UpdatePostDraft,
  bag: ErrorBag,
  malformed: ReadonlySet<string> = new Set(),
): UpdatePlan {
  const now = ctx.now();
  const { post: postRow, rows, attached, refs, signatures: signatureTexts } = state;
  const postId = postRow.id;
  const platformInputs = input.platforms ?? [];

  // status transition
  const target = input.status;
  if (target && !FROM[target].includes(postRow.status)) {
    bag.add("status", `A ${postRow.status.replace("_", " ")} post cannot be moved to ${target}.`);
  }

  // scalar fields
  const scheduledAt = parseScheduledAt(bag, input.scheduled_at);
  const queued = checkQueue(bag, state, input, { now, scheduledAt });
  const nextScheduledAt = queued
    ? queued.candidates[0]!
    : input.scheduled_at === undefined
      ? postRow.scheduledAt
      : (scheduledAt ?? null);
  let nextContent = input.content === undefined ? postRow.content : input.content;
  if (input.signature_id !== undefined && !malformed.has("content")) {
    nextContent = appendSignature(bag, "content", "signature_id", signatureTexts, input.signature_id, nextContent);
  }

  // platforms: existing rows addressed by id, new targets without
  const byId = new Map(rows.map((r) => [r.id, r]));
  const planned = new Map<string, PlannedRow>(rows.map((r) => [r.id, { row: { ...r }, changed: false, isNew: false }]));
  checkDistinct(
    bag,
    "platforms",
    platformInputs.map((p) => p?.id),
    ".id",
  );
  const targeted = new Set(rows.map((r) => r.socialAccountId));
  let position = rows.reduce((max, r) => Math.max(max, r.position), -1);
  platformInputs.forEach((p, i) => {
    if (p === undefined) return;
    const prefix = `platforms.${i}`;
    if (p.id !== undefined) {
      const existing = byId.get(p.id);
      const plan = planned.get(p.id);
      if (!existing || !plan) {
        bag.add(`${prefix}.id`, `The selected ${attribute(`${prefix}.id`)} is invalid.`);
        return;
      }
      plan.changed = true;
      plan.row.enabled = p.enabled ?? true;
      if (
        p.content_type !== undefined &&
        checkContentType(bag, `${prefix}.content_type`, existing.platform, p.content_type)
      ) {
        plan.row.contentType = p.content_type;
      }
      if (p.meta !== undefined) {
        checkMetaFields(bag, prefix, existing.platform, plan.row.contentType, p.meta);
        plan.row.meta = checkMetaSize(bag, prefix, mergeMeta(plan.row.meta ?? {}, p.meta));
      }
      applyRowTexts(bag, refs, prefix, existing.platform, p, plan.row);
      applyRowSignature(bag, prefix, p, plan.row, nextContent, signatureTexts);
      plan.row.followUps = keptFollowUps(bag, prefix, existing, plan.row);
      return;
    }
    let missing = false;
    for (const field of ["social_account_id", "content_type"] as const) {
      if (p[field] === undefined) {
        bag.add(
          `${prefix}.${field}`,
          `The ${attribute(`${prefix}.${field}`)} field is required when ${prefix}.id is not present.`,
        );
        missing = true;
      }
    }
    if (missing) return;
    const account: AccountRow | null = checkTarget(bag, refs, prefix, {
      social_account_id: p.social_account_id!,
      content_type: p.content_type!,
    });
    if (!account) return;
    if (targeted.has(account.id)) {
      bag.add(
        `${prefix}.social_account_id`,
        `The ${attribute(`${prefix}.social_account_id`)} field has a duplicate value.`,
      );
      return;
    }
    targeted.add(account.id);
    checkMetaFields(bag, prefix, account.platform, p.content_type!, p.meta ?? {});
    const texts: RowTextColumns = { content: null, thread: null, firstComment: null };
    applyRowTexts(bag, refs, prefix, account.platform, p, texts);
    applyRowSignature(bag, prefix, p, texts, nextContent, signatureTexts);
    const id = newId();
    planned.set(id, {
      isNew: true,
      changed: true,
      row: {
        id,
        postId,
        socialAccountId: account.id,
        platform: account.platform,
        contentType: p.content_type!,
        status: "pending",
        enabled: p.enabled ?? true,
        meta: checkMetaSize(bag, prefix, mergeMeta({}, p.meta ?? {})),
        platformPostId: null,
        platformUrl: null,
        publishedAt: null,
        errorMessage: null,
        displayName: account.displayName,
        displayUsername: account.username,
        displayAvatar: account.avatarUrl ?? "",
        claimedAt: null,
        attempts: 0,
        publishState: null,
        position: ++position,
        createdAt: now,
        updatedAt: now,
        ...texts,
        followUps: null,
        replyRef: null,
        followUpState: null,
      },
    });
  });
  if (planned.size > POST_TARGETS_MAX) bag.add("platforms", tooManyTargetsMessage(planned.size));

  const labelRows = input.label_ids ? checkLabels(bag, refs, input.label_ids) : null;
  const mediaRows = input.media ? checkMedia(bag, refs, input.media) : null;

  // Rules on the post as it will be, in the same round: rows and media that failed above are left out of them.
  const nextStatus: PostStatus = target ?? postRow.status;
  const nextMedia: RuleMedia[] = mediaRows ?? attached;
  // Rows in the order the post shows them: schedule errors of a row's own texts name its index there.
  const ordered = [...planned.values()]
    .map((p) => p.row)
    .sort((a, b) => a.position - b.position || a.createdAt - b.createdAt);
  const enabledRows = ordered.filter((r) => r.enabled);
  const contentChanged =
    input.content !== undefined ||
    input.signature_id !== undefined ||
    input.media !== undefined ||
    input.platforms !== undefined;
  if (target === "scheduled" || (nextStatus === "scheduled" && (contentChanged || input.scheduled_at !== undefined))) {
    // Added to a queue, the time is the slot's (after now by construction); a refused queue_id is its own error.
    const viaQueue = asksForSlot(input) || malformed.has("queue_id") || malformed.has("reservation_id");
    checkSchedule(bag, {
      requireFuture: !viaQueue && (target === "scheduled" || input.scheduled_at !== undefined),
      scheduledAt: viaQueue ? (queued?.candidates[0] ?? now) : nextScheduledAt,
      now,
      content: nextContent,
      media: nextMedia,
      rows: enabledRows,
      indexOf: new Map(ordered.map((r, i) => [r.id, i])),
      threadMedia: refs.media,
      skip: malformed,
      // Mastodon rows count against their instance's limit when it is known (docs/text-counting.md).
      limits: textLimitsOf(refs, enabledRows),
    });
  }
  if (target === "publishing" && enabledRows.length === 0) bag.add("platforms", NO_ENABLED_PLATFORM);
  const freesSlot =
    !queued &&
    postRow.queueId !== null &&
    (target === "draft" || target === "publishing" || input.scheduled_at !== undefined);
  return { target, nextStatus, nextContent, nextScheduledAt, planned, labelRows, mediaRows, queued, freesSlot };
}

/**
 * Issue 37: `queue_id` or `reservation_id` go with `status: "scheduled"`; the rest is `checkQueueChoice`'s (a queue
 * of this workspace with posting times, exactly one of its slot times with `scheduled_at`, or a live reservation).
 * The slot the post takes, or null (errors in `bag`). `scheduledAt`: `scheduled_at` as parsed by the caller.
 */
function checkQueue(
  bag: ErrorBag,
  state: PostState,
  input: UpdatePostDraft,
  opts: { now: number; scheduledAt: number | null | undefined },
): UpdatePlan["queued"] {
  if (asksForSlot(input) && input.status !== "scheduled") {
    if (input.queue_id !== undefined) bag.add("queue_id", QUEUE_ID_NEEDS_SCHEDULED);
    if (input.reservation_id !== undefined) bag.add("reservation_id", RESERVATION_NEEDS_SCHEDULED);
    return null;
  }
  return checkQueueChoice(bag, state.queue, input, { ...opts, scheduledAtSent: input.scheduled_at !== undefined });
}

/**
 * The checks of an update alone, for a request that also has shape errors (one round, routes/posts/one-round.ts).
 * Throws like `loadUpdateState` when the post is absent or not editable.
 */
export async function updatePostReferenceErrors(
  ctx: WorkspaceContext,
  postId: string,
  draft: UpdatePostDraft,
  malformed: ReadonlySet<string>,
): Promise<FieldErrors> {
  const bag = new ErrorBag();
  checkUpdatePost(ctx, await loadUpdateState(ctx, postId, draft), draft, bag, malformed);
  return bag.errors;
}

/**
 * PUT /posts/{post}. Validates everything against the post as it would be after the update (one round), then
 * writes. Round trips (issue 28): one read batch (`loadUpdateState`) and one write batch, answered from what was read
 * and written — nothing is read back:
 * 1. one conditional `UPDATE posts … WHERE status = <status read> AND revision = <revision read>` — the claim. Of two
 *    concurrent requests only one passes it, so two `status=publishing` never both enqueue (the loser gets 409); and
 *    since every change to what the post shows moves its revision (migrations/0001_post_revisions.sql), a claim that
 *    holds means the post is still exactly as read, so the answer built from the read and the writes is exact;
 * 2. the child writes (rows, media links, label links), the `post.scheduled` event and the release of media no post
 *    uses any more, in the same batch — each kind one statement however many rows (`json_each`);
 * 3. for `publishing`, one queue message per enabled row that is not published (failed rows reset to pending);
 * 4. the released media's R2 objects.
 */
export async function updatePost(ctx: WorkspaceContext, postId: string, input: UpdatePostInput): Promise<PostResource> {
  const now = ctx.now();
  const state = await loadUpdateState(ctx, postId, input);
  const { post: postRow, attached } = state;
  const bag = new ErrorBag();
  const { target, nextStatus, nextContent, nextScheduledAt, planned, labelRows, mediaRows, queued, freesSlot } =
    checkUpdatePost(ctx, state, input, bag);
  bag.throwIfAny();

  // 1. child writes, planned before anything is written
  // Publishing now or scheduling again: failed rows get another try (pending, old error cleared), so the publish
  // job and the scheduler only ever pick up pending rows.
  const toPublish: PlatformRow[] = [];
  if (target === "publishing" || target === "scheduled") {
    for (const plan of planned.values()) {
      const r = plan.row;
      if (!r.enabled || r.status === "published" || r.status === "publishing") continue;
      if (r.status === "failed") {
        Object.assign(r, { status: "pending" as PostPlatformStatus, errorMessage: null, claimedAt: null, attempts: 0 });
        plan.changed = true;
      }
      if (target === "publishing") toPublish.push(r);
    }
  }
  const writes: BatchItem<"sqlite">[] = [];
  const plans = [...planned.values()];
  const inserted = plans.filter((p) => p.isNew).map((p) => p.row);
  const changed = plans
    .filter((p) => !p.isNew && p.changed)
    .map(({ row: r }) => ({
      id: r.id,
      enabled: r.enabled,
      contentType: r.contentType,
      meta: r.meta,
      status: r.status,
      errorMessage: r.errorMessage,
      claimedAt: r.claimedAt,
      attempts: r.attempts,
      content: r.content,
      thread: r.thread,
      firstComment: r.firstComment,
      followUps: r.followUps,
      updatedAt: now,
    }));
  if (inserted.length) writes.push(insertJsonRows(ctx.db, postPlatforms, inserted));
  if (changed.length) writes.push(updateJsonRows(ctx.db, postPlatforms, "id", changed));
  if (mediaRows) {
    writes.push(ctx.db.delete(postMedia).where(eq(postMedia.postId, postId)));
    if (mediaRows.length)
      writes.push(
        insertJsonRows(
          ctx.db,
          postMedia,
          mediaRows.map((m, i) => ({ postId, mediaId: m.id, position: i })),
        ),
      );
  }
  if (labelRows) {
    writes.push(ctx.db.delete(postLabels).where(eq(postLabels.postId, postId)));
    if (labelRows.length)
      writes.push(
        insertJsonRows(
          ctx.db,
          postLabels,
          labelRows.map((l) => ({ postId, labelId: l.id })),
        ),
      );
  }
  // Media no longer attached anywhere (the post's list replaced, or a thread that named them replaced): released in
  // the same batch, after the writes that detached them. Only media no post shows are released.
  const kept = new Set((mediaRows ?? attached).map((m) => m.id));
  const keptInThreads = new Set([...planned.values()].flatMap((p) => (p.row.thread ?? []).flatMap((t) => t.media)));
  const detached = [
    ...new Set([
      ...(mediaRows ? attached.map((m) => m.id) : []),
      ...state.rows.flatMap((r) => (r.thread ?? []).flatMap((t) => t.media)),
    ]),
  ].filter((id) => !kept.has(id) && !keptInThreads.has(id));
  const detachedPaths = [...new Set(detached.flatMap((id) => state.refs.media.get(id)?.path ?? []))];
  const release = detached.length
    ? [releaseOrphansStatement(ctx, detached), stillUsedPathsStatement(ctx, detachedPaths)]
    : [];

  // 2. the claim and the child writes in one D1 batch (one transaction): the conditional UPDATE claims the post only
  // from the status and revision read; if it changed nothing (another request moved or changed the post first), the
  // next statement fails on purpose (json() of a non-JSON string) and the whole batch rolls back, so no child write
  // can land on a post that another request has just changed or sent to publishing.
  const allowedFrom = target ? FROM[target].filter((s) => s === postRow.status) : [postRow.status];
  const postFields = {
    status: nextStatus,
    ...(input.content !== undefined || input.signature_id !== undefined ? { content: nextContent } : {}),
    ...(input.scheduled_at !== undefined ? { scheduledAt: nextScheduledAt } : {}),
    ...(freesSlot ? { queueId: null } : {}),
    // A new rule counts from this post (its anchor is set when the series next continues); the same rule sent
    // again keeps its anchor.
    ...(input.repeat !== undefined
      ? { repeat: replacedRepeat(postRow.repeat as StoredRepeat | null, input.repeat) }
      : {}),
    updatedAt: now,
  };
  // Issue 37: the slot statements follow the claim, so they run only on the post as read.
  const slot = queued ? takeSlotStatements(ctx, { ...queued, postId }) : null;
  const slotWrites = slot ? slot.statements : freesSlot ? [freeSlotStatement(ctx, postId)] : [];
  const claim = ctx.db
    .update(posts)
    .set(postFields)
    .where(
      and(
        eq(posts.id, postId),
        eq(posts.workspaceId, ctx.workspaceId),
        inArray(posts.status, allowedFrom),
        eq(posts.revision, postRow.revision),
      ),
    );
  const claimHeld = ctx.db.run(sql`SELECT CASE WHEN changes() = 0 THEN json('claim lost') ELSE 1 END`);
  // post.scheduled goes after the child writes, so its snapshot shows the post as this request leaves it.
  const event = target === "scheduled" ? [postEvent(ctx, "post.scheduled", postId)] : [];
  let released: { path: string }[] = [];
  let stillUsed: { path: string }[] = [];
  try {
    const results = await ctx.db.batch([claim, claimHeld, ...slotWrites, ...writes, ...event, ...release] as [
      BatchItem<"sqlite">,
      ...BatchItem<"sqlite">[],
    ]);
    if (release.length) [released, stillUsed] = results.slice(-2) as [{ path: string }[], { path: string }[]];
    if (slot && queued) {
      const [taken] = results[2 + slot.takenIndex] as { at: number }[];
      Object.assign(postFields, { scheduledAt: taken!.at, queueId: queued.queueId });
    }
  } catch (err) {
    const again = await ctx.db
      .select({ status: posts.status, revision: posts.revision })
      .from(posts)
      .where(and(eq(posts.id, postId), eq(posts.workspaceId, ctx.workspaceId)))
      .get();
    const unchanged = again && allowedFrom.includes(again.status) && again.revision === postRow.revision;
    // The post is as read, so what failed is the slot guard: every candidate was taken meanwhile.
    if (unchanged) throw queued ? slotGuardFailure(err, queued) : err;
    if (again) guardEditable(again.status);
    throw conflict(CHANGED_MESSAGE);
  }

  // 3. hand the rows to the publish queue
  if (toPublish.length) {
    try {
      await enqueuePublishMessages(
        ctx.env.PUBLISH_QUEUE,
        toPublish.map((r) => ({ post_platform_id: r.id, post_id: postId, workspace_id: ctx.workspaceId })),
      );
    } catch (err) {
      // Nothing was handed over: put the post back so the user can try again instead of waiting on nothing.
      log("error", "publish_enqueue_failed", { request_id: ctx.requestId, post_id: postId, ...errorFields(err) });
      await ctx.db
        .update(posts)
        .set({ status: postRow.status, updatedAt: ctx.now() })
        .where(and(eq(posts.id, postId), eq(posts.status, "publishing")));
      throw err;
    }
  }

  // 4. the released media's objects
  if (released.length)
    await deleteReleasedObjects(
      ctx,
      released.map((r) => r.path),
      stillUsed,
    );

  // The answer: the post as read, with what this request wrote (the claim held, so nothing else changed it).
  const media = state.refs.media;
  return presentPost(ctx, {
    post: { ...postRow, ...postFields },
    platforms: [...planned.values()]
      .map((p) => p.row)
      .sort((a, b) => a.position - b.position || a.createdAt - b.createdAt)
      .flatMap((row) => {
        // As the loader joins them: a row shows with its account (rows go with a deleted account).
        const account = state.refs.accounts.get(row.socialAccountId);
        const ids = new Set((row.thread ?? []).flatMap((item) => item.media));
        return account ? [{ row, account, itemMedia: [...ids].flatMap((id) => media.get(id) ?? []) }] : [];
      }),
    media: mediaRows ?? attached,
    labels: [...(labelRows ?? state.labels)].sort(
      (a, b) => compareCodePoints(a.name, b.name) || a.createdAt - b.createdAt,
    ),
  });
}

/** A row's merged `meta` must stay small (bounds.ts): it is stored per row and sent with every publish. */
function checkMetaSize(bag: ErrorBag, prefix: string, meta: Record<string, unknown>): Record<string, unknown> {
  const bytes = new TextEncoder().encode(JSON.stringify(meta)).length;
  if (bytes > PLATFORM_META_MAX_BYTES) {
    bag.add(
      `${prefix}.meta`,
      `The ${attribute(`${prefix}.meta`)} field must not be greater than ${PLATFORM_META_MAX_BYTES} bytes as JSON (${bytes} after the merge).`,
    );
  }
  return meta;
}

function guardEditable(status: PostStatus): void {
  if (status === "published") throw validationError({ status: [PUBLISHED_MESSAGE] });
  if (status === "publishing") throw conflict(PUBLISHING_MESSAGE);
}

function mergeMeta(base: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** Issue 20: the meta keys a request sets that the network reads (src/catalog/meta-fields.ts) must fit it. */
function checkMetaFields(
  bag: ErrorBag,
  prefix: string,
  platform: string,
  contentType: string,
  patch: Record<string, unknown>,
): void {
  for (const { key, message } of checkMetaPatch(platform, contentType, patch, (k) =>
    attribute(`${prefix}.meta.${k}`),
  )) {
    bag.add(`${prefix}.meta.${key}`, message);
  }
}

/**
 * Issue 20: `platforms[].signature_id` appends a signature to the row's own text — the `content` this entry sends,
 * else the row's stored one, else the post's (as this request leaves it) — which becomes the row's `content`.
 */
function applyRowSignature(
  bag: ErrorBag,
  prefix: string,
  input: UpdatePostPlatformInput,
  row: RowTextColumns,
  postContent: string | null,
  found: ReadonlyMap<string, string>,
): void {
  if (input.signature_id === undefined) return;
  row.content = appendSignature(
    bag,
    `${prefix}.content`,
    `${prefix}.signature_id`,
    found,
    input.signature_id,
    row.content ?? postContent,
  );
}

/**
 * Issue 20: thread items and a first comment already on the network cannot be changed or removed any more (their
 * keys are fixed, and a retry finds the live one again): 422 naming the item. Results of items that are not live
 * are dropped when the item changes, so its new text is what gets published.
 */
function keptFollowUps(
  bag: ErrorBag,
  prefix: string,
  before: PlatformRow,
  after: PlatformRow,
): PlatformRow["followUps"] {
  const results = before.followUps;
  if (!results) return null;
  const kept: NonNullable<PlatformRow["followUps"]> = {};
  const old = before.thread ?? [];
  const next = after.thread ?? [];
  old.forEach((item, i) => {
    const r = results[`t${i + 1}`];
    if (!r) return;
    const now = next[i];
    const same = now !== undefined && now.content === item.content && now.media.join() === item.media.join();
    if (same) kept[`t${i + 1}`] = r;
    else if (r.status === "published") {
      bag.add(`${prefix}.thread.${i}`, `Thread item ${i + 1} is already published and cannot be changed or removed.`);
      kept[`t${i + 1}`] = r;
    }
  });
  if (results.c) {
    if (before.firstComment === after.firstComment) kept.c = results.c;
    else if (results.c.status === "published") {
      bag.add(`${prefix}.first_comment`, "The first comment is already published and cannot be changed or removed.");
      kept.c = results.c;
    }
  }
  return Object.keys(kept).length > 0 ? kept : null;
}
