import { and, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { WorkspaceContext } from "../../context";
import { constraintFailure } from "../../db/errors";
import { insertJsonRows } from "../../db/json-params";
import { idempotencyRecords, postLabels, postMedia, postPlatforms, posts } from "../../db/schema";
import { ErrorBag, type FieldErrors } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { log } from "../../lib/logger";
import { formatYmdHis, todayAtNineUtc } from "../../lib/time";
import { type PostResource, presentPost } from "../../presenters/post";
import {
  asksForSlot,
  checkQueueChoice,
  type QueueChoice,
  queueChoiceOf,
  queueChoiceRead,
  type SlotTake,
  slotGuardFailure,
  takeSlotStatements,
} from "../queues/take-slot";
import { postEvent } from "../webhooks/outbox";
import {
  afterLostRace,
  type IdempotencyClaim,
  readIdempotencyRecord,
  recordStatements,
  replayOf,
  type StoredResponse,
} from "./idempotency";
import { forgetReferences, recallReferences, rememberReferences } from "./reference-memory";
import {
  type AccountRow,
  checkDistinct,
  checkLabels,
  checkMedia,
  checkTarget,
  type LabelRow,
  loadReferences,
  type MediaRow,
  parseScheduledAt,
  type ReferenceIds,
  type References,
  referenceReads,
  referencesUnchanged,
  SCHEDULED_AT_AFTER_NOW,
} from "./references";
import { type RepeatInput, storedRepeat } from "./repeat-rule";
import { applyRowTexts, type RowTextColumns, type RowTextsInput, threadMediaIds } from "./row-texts";
import { checkSchedule, type ScheduleRuleRow, textLimitsOf } from "./schedule-rules";

export interface CreatePostInput {
  platforms: ({ social_account_id: string; content_type: string } & RowTextsInput)[];
  content?: string | null;
  media?: { id: string }[];
  /** ISO 8601 (or bare `Y-m-d H:i:s`, read as UTC); null for an unscheduled draft. */
  scheduled_at?: string | null;
  /** Issue 37: created and queued in one call — the post takes this queue's next free slot, status `scheduled`. */
  queue_id?: string;
  /** Issue 37: `"next"` takes the queue's earliest slot, moving the queued posts down one. */
  queue_position?: "last" | "next";
  /** Issue 37: created `scheduled` in exactly this reservation's slot. */
  reservation_id?: string;
  /** Issue 37: the post repeats (docs/queues.md, "Repeating posts"). */
  repeat?: RepeatInput | null;
  label_ids?: string[];
}

/**
 * A create request as far as it is well formed: array items that failed the shape check are holes (`undefined`)
 * and fields that failed it are absent. The reference checks run on this, so a request with shape errors still
 * learns about its unknown accounts and labels in the same 422 (docs/limits.md, "one round").
 */
export interface CreatePostDraft {
  platforms?: (({ social_account_id: string; content_type: string } & RowTextsInput) | undefined)[];
  content?: string | null;
  media?: ({ id: string } | undefined)[];
  scheduled_at?: string | null;
  queue_id?: string;
  queue_position?: "last" | "next";
  reservation_id?: string;
  label_ids?: (string | undefined)[];
}

interface CreatePlan {
  scheduledAt: number | null | undefined;
  accounts: (AccountRow | null)[];
  /** Issue 20: each target's own texts as its row stores them. */
  texts: RowTextColumns[];
  labelRows: LabelRow[];
  mediaRows: MediaRow[];
  /** Every row the checks read: the answer is built from them and from what is written, with no read-back. */
  refs: References;
  /** Issue 37: the slot the post takes: its queue, how, and the times it may get, earliest first. */
  queued: SlotTake | null;
}

/**
 * Every check that reads the database (accounts, labels and media exist here, accounts are usable, content types
 * fit) plus `scheduled_at`, collected into `bag`: one batch of at most three statements whatever the request holds.
 */
export async function checkCreatePost(
  ctx: WorkspaceContext,
  input: CreatePostDraft,
  bag: ErrorBag,
  read: (ids: ReferenceIds) => Promise<References> = (ids) => loadReferences(ctx, ids),
): Promise<CreatePlan> {
  const now = ctx.now();
  const targets = input.platforms ?? [];
  const mediaItems = input.media ?? [];
  const labelIds = input.label_ids ?? [];

  const scheduledAt = parseScheduledAt(bag, input.scheduled_at);
  if (typeof scheduledAt === "number" && scheduledAt <= now) bag.add("scheduled_at", SCHEDULED_AT_AFTER_NOW);

  checkDistinct(
    bag,
    "platforms",
    targets.map((p) => p?.social_account_id),
    ".social_account_id",
  );
  // The queue (issue 37) is read beside the references, not after them.
  const [refs, queue] = await Promise.all([
    read(referenceIdsOf(input)),
    asksForSlot(input) ? queueChoiceRead(ctx, input).then((rows) => queueChoiceOf(rows, input)) : undefined,
  ]);
  const accounts = targets.map((p, i) => (p ? checkTarget(bag, refs, `platforms.${i}`, p) : null));
  const texts = targets.map((p, i) => {
    const columns: RowTextColumns = { content: null, thread: null, firstComment: null };
    const platform = accounts[i]?.platform ?? (p ? refs.accounts.get(p.social_account_id)?.platform : undefined);
    if (p && platform) applyRowTexts(bag, refs, `platforms.${i}`, platform, p, columns);
    return columns;
  });
  const labelRows = checkLabels(bag, refs, labelIds);
  const mediaRows = checkMedia(bag, refs, mediaItems);
  const queued =
    queue === undefined
      ? checkQueueChoice(bag, null, input, { scheduledAtSent: false, now })
      : checkQueued(bag, input, queue, { accounts, texts, mediaRows, refs, now, scheduledAt });
  return { scheduledAt, accounts, texts, labelRows, mediaRows, refs, queued };
}

/**
 * Issue 37: `queue_id` without `scheduled_at`, naming a queue of this workspace that has posting times; and since
 * the post is created `scheduled`, every rule of scheduling on it as it will be (decisions §6), in the same round.
 */
function checkQueued(
  bag: ErrorBag,
  input: CreatePostDraft,
  queue: QueueChoice | null,
  plan: Pick<CreatePlan, "accounts" | "texts" | "mediaRows" | "refs" | "scheduledAt"> & { now: number },
): CreatePlan["queued"] {
  const scheduledAtSent = input.scheduled_at !== undefined;
  const queued = checkQueueChoice(bag, queue, input, {
    scheduledAtSent,
    scheduledAt: plan.scheduledAt,
    now: plan.now,
  });
  if (!queued && (scheduledAtSent || !queue)) return null;
  const rows: ScheduleRuleRow[] = plan.accounts.flatMap((account, i) =>
    account
      ? [
          {
            id: String(i),
            platform: account.platform,
            contentType: (input.platforms ?? [])[i]!.content_type,
            socialAccountId: account.id,
            ...plan.texts[i]!,
          },
        ]
      : [],
  );
  checkSchedule(bag, {
    requireFuture: false,
    scheduledAt: queued?.candidates[0] ?? plan.now,
    now: plan.now,
    content: input.content ?? "",
    media: plan.mediaRows,
    rows,
    indexOf: new Map(rows.map((r) => [r.id, Number(r.id)])),
    threadMedia: plan.refs.media,
    limits: textLimitsOf(plan.refs, rows),
  });
  return queued;
}

/** The accounts, labels and media (the post's and its thread items') a create request names. */
function referenceIdsOf(input: CreatePostDraft): ReferenceIds {
  const targets = input.platforms ?? [];
  return {
    accountIds: targets.map((p) => p?.social_account_id),
    labelIds: input.label_ids ?? [],
    mediaIds: [...(input.media ?? []).map((m) => m?.id), ...threadMediaIds(targets)],
  };
}

/** The reference checks alone, for a request that also has shape errors (one round, routes/posts/one-round.ts). */
export async function createPostReferenceErrors(ctx: WorkspaceContext, draft: CreatePostDraft): Promise<FieldErrors> {
  const bag = new ErrorBag();
  await checkCreatePost(ctx, draft, bag);
  return bag.errors;
}

/**
 * Creates a draft: one `pending`, enabled row per target, with a snapshot of the account's name, handle and avatar.
 *
 * `scheduled_at`: when given it must be in the future. When omitted it defaults to today 09:00 UTC and is stored
 * as is, even if 09:00 has already passed today — a draft is not scheduled, and `PUT status=scheduled` later
 * requires a future time anyway.
 *
 * Round trips (issue 28): one read (the reference checks, a batch of at most three statements: none for an empty
 * list) and one write batch of at most four statements however many targets, media and labels (each child list is
 * one `INSERT … SELECT … FROM json_each(?)`; an Idempotency-Key adds one statement to the read and two to the write:
 * `createPostOnce`). The answer is built from what was written and the rows the checks read — nothing is read back:
 * far from the primary every sequential D1 call is a cross-region round trip. test/routes/round-trips.test.ts
 * shows the answer equals a later GET.
 */
export async function createPost(ctx: WorkspaceContext, input: CreatePostInput): Promise<PostResource> {
  return (await createPostOnce(ctx, input)).body as PostResource;
}

/**
 * `createPost` with an `Idempotency-Key` (src/services/posts/idempotency.ts) in the same two round trips: the key's
 * record is read with the reference checks, and the response is stored in the write batch with the post. A replay
 * (or its 422/409) is answered from the read alone.
 *
 * When this isolate remembers every row the request names (src/services/posts/reference-memory.ts), the read is
 * skipped: one round trip, the write batch alone, guarded by those rows' fingerprints. If the guard or the key's
 * record refuses it (a constraint failure: certain to have rolled back), the create runs again the careful way.
 */
export async function createPostOnce(
  ctx: WorkspaceContext,
  input: CreatePostInput,
  claim?: IdempotencyClaim,
): Promise<StoredResponse> {
  return (await createFromRemembered(ctx, input, claim)) ?? (await createAfterReading(ctx, input, claim));
}

/**
 * The one-round-trip create, or null when it cannot answer: a named row is not remembered, the remembered rows fail a
 * check (the 422 must come from rows as they are now, so the careful path re-reads), or the guarded write was refused
 * by a constraint — a remembered row changed, or the Idempotency-Key already has a record (the careful path replays it).
 */
async function createFromRemembered(
  ctx: WorkspaceContext,
  input: CreatePostInput,
  claim: IdempotencyClaim | undefined,
): Promise<StoredResponse | null> {
  // A queued create reads its queue's held slots: always the careful path.
  if (asksForSlot(input)) return null;
  const refs = recallReferences(ctx.workspaceId, referenceIdsOf(input), ctx.now());
  if (!refs) return null;
  const bag = new ErrorBag();
  const plan = await checkCreatePost(ctx, input, bag, async () => refs);
  if (!bag.empty) return null;
  try {
    return await writeCreate(ctx, input, plan, claim, undefined, referencesUnchanged(ctx, refs));
  } catch (err) {
    const constraint = constraintFailure(err);
    if (constraint === null) {
      if (!claim) throw err;
      return afterLostRace(ctx, claim, err);
    }
    forgetReferences(ctx.workspaceId);
    log("debug", "create_from_remembered_refused", { request_id: ctx.requestId, constraint });
    return null;
  }
}

/** Read (the references, and the key's record), check, write: two round trips. */
async function createAfterReading(
  ctx: WorkspaceContext,
  input: CreatePostInput,
  claim: IdempotencyClaim | undefined,
): Promise<StoredResponse> {
  const now = ctx.now();
  const bag = new ErrorBag();
  let record: (typeof idempotencyRecords.$inferSelect)[] = [];
  const plan = await checkCreatePost(ctx, input, bag, async (ids) => {
    if (!claim) return loadReferences(ctx, ids);
    const reads = referenceReads(ctx, ids);
    const results = await ctx.db.batch([readIdempotencyRecord(ctx, claim), ...reads.statements]);
    record = results[0];
    return reads.references(results.slice(1));
  });
  rememberReferences(ctx.workspaceId, plan.refs, now);
  // A stored response is the answer whatever the checks say now (they ran in the same round trip).
  const replay = claim ? replayOf(record[0], claim, now) : null;
  if (replay) return replay;
  bag.throwIfAny();
  try {
    return await writeCreate(ctx, input, plan, claim, record[0]);
  } catch (err) {
    if (!claim) throw err;
    return afterLostRace(ctx, claim, err);
  }
}

/**
 * The write batch of a checked create, and its answer built from what it writes. `guard`, when given, is the SQL
 * condition the post's INSERT requires (`referencesUnchanged`): false, and the batch fails on `posts.workspace_id`
 * NOT NULL and rolls back.
 */
async function writeCreate(
  ctx: WorkspaceContext,
  input: CreatePostInput,
  plan: CreatePlan,
  claim: IdempotencyClaim | undefined,
  taken: typeof idempotencyRecords.$inferSelect | undefined,
  guard?: ReturnType<typeof referencesUnchanged>,
): Promise<StoredResponse> {
  const now = ctx.now();
  const scheduledAt = input.scheduled_at === undefined ? todayAtNineUtc(now) : plan.scheduledAt;

  const postId = newId();
  const { queued } = plan;
  const post = {
    id: postId,
    workspaceId: ctx.workspaceId,
    content: input.content ?? "",
    status: queued ? ("scheduled" as const) : ("draft" as const),
    // A queued post's time is the slot it takes in the batch below; the first candidate until then.
    scheduledAt: queued ? queued.candidates[0]! : (scheduledAt ?? null),
    publishedAt: null,
    queueId: queued?.queueId ?? null,
    repeat: input.repeat ? storedRepeat(input.repeat) : null,
    repeatOf: null,
    createdAt: now,
    updatedAt: now,
  };
  const platformRows = input.platforms.map((p, i) => {
    const account = plan.accounts[i]!;
    return {
      id: newId(),
      postId,
      socialAccountId: account.id,
      platform: account.platform,
      contentType: p.content_type,
      status: "pending" as const,
      enabled: true,
      meta: {},
      ...plan.texts[i]!,
      displayName: account.displayName,
      displayUsername: account.username,
      displayAvatar: account.avatarUrl ?? "",
      position: i,
      createdAt: now,
      updatedAt: now,
    };
  });
  const { mediaRows, labelRows } = plan;
  const body = presentPost(ctx, {
    post,
    platforms: platformRows.map((row, i) => ({
      row: { ...row, platformUrl: null, publishedAt: null, errorMessage: null, platformPostId: null, followUps: null },
      account: plan.accounts[i]!,
      itemMedia: (row.thread ?? []).flatMap((item) => item.media.map((id) => plan.refs.media.get(id)!)),
    })),
    media: mediaRows,
    // As the loader orders them: `ORDER BY l.name, l.created_at` (SQLite's BINARY collation: code point order).
    labels: [...labelRows].sort((a, b) => compareCodePoints(a.name, b.name) || a.createdAt - b.createdAt),
  });
  const record = claim ? recordStatements(ctx, claim, taken, 201, body) : [];
  const slot = queued ? takeSlotStatements(ctx, { ...queued, postId }) : null;
  // Issue 37: the slot and its time are known only inside the batch, so the stored response takes the time from
  // the slot row (a replay answers as this request does), and post.scheduled is recorded after it.
  const queuedWrites = slot
    ? [
        ...slot.statements,
        postEvent(ctx, "post.scheduled", postId),
        ...(claim ? [recordedTimeFromSlot(ctx, claim.key, postId)] : []),
      ]
    : [];
  // A queued create is not merged into a group commit: its slot guard may fail the batch on purpose.
  const db = queued ? ctx.db : (ctx.groupedDb?.() ?? ctx.db);
  const results = await db
    .batch([
      ...record,
      guard
        ? insertJsonRows(ctx.db, posts, [post], { onlyIf: { ...guard, notNullColumn: "workspaceId" } })
        : ctx.db.insert(posts).values(post),
      insertJsonRows(ctx.db, postPlatforms, platformRows),
      ...(mediaRows.length
        ? [
            insertJsonRows(
              ctx.db,
              postMedia,
              mediaRows.map((m, i) => ({ postId, mediaId: m.id, position: i })),
            ),
          ]
        : []),
      ...(labelRows.length
        ? [
            insertJsonRows(
              ctx.db,
              postLabels,
              labelRows.map((l) => ({ postId, labelId: l.id })),
            ),
          ]
        : []),
      ...queuedWrites,
    ] as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])
    .catch((err: unknown) => {
      // The slot guard may have failed the batch (nothing was written): every candidate was taken meanwhile.
      throw queued ? slotGuardFailure(err, queued) : err;
    });
  if (slot) {
    const [takenSlot] = results[results.length - queuedWrites.length + slot.takenIndex] as { at: number }[];
    body.scheduled_at = formatYmdHis(takenSlot!.at);
  }
  return { status: 201, body, replayed: false };
}

/** The stored response's `scheduled_at`, from the slot the post took in the same batch (Y-m-d H:i:s UTC). */
function recordedTimeFromSlot(ctx: WorkspaceContext, key: string, postId: string) {
  return ctx.db
    .update(idempotencyRecords)
    .set({
      responseBody: sql`json_set(${idempotencyRecords.responseBody}, '$.scheduled_at',
        (SELECT strftime('%Y-%m-%d %H:%M:%S', at / 1000, 'unixepoch') FROM queue_slots WHERE post_id = ${postId}))`,
    })
    .where(and(eq(idempotencyRecords.workspaceId, ctx.workspaceId), eq(idempotencyRecords.key, key)));
}

/** Code point order, as SQLite's BINARY collation compares UTF-8 text (JS `<` compares UTF-16 code units). */
export function compareCodePoints(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}
