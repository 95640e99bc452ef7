import { and, asc, eq, gte, sql } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { labels, posts, type QueueSlot, queueSlots, queues, socialAccounts } from "../../db/schema";
import { conflict, ErrorBag, notFound, validationError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { formatYmdHis } from "../../lib/time";
import { isGuardFailure, reshuffleMoves, resumeMoves } from "./slot-moves";
import { localYmdHis, upcomingSlotTimes } from "./slot-times";
import { SLOT_CANDIDATES_SPARE } from "./take-slot";

/** Issue 37 bounds (docs/limits.md). */
export const QUEUES_MAX = 20;
export const QUEUE_SLOTS_MAX = 100;
export const QUEUE_NAME_MAX = 100;
export const QUEUE_ACCOUNTS_MAX = 100;
export const QUEUE_SLOTS_LIST_MAX = 100;
/** Issue 37, evergreen: the gap between two copies of one post, in days. */
export const EVERGREEN_MIN_DAYS_MIN = 7;
export const EVERGREEN_MIN_DAYS_MAX = 365;
export const EVERGREEN_MIN_DAYS_DEFAULT = 30;

export interface QueueInput {
  name: string;
  time_zone: string;
  slots: QueueSlot[];
  social_account_ids?: string[];
  paused?: boolean;
  is_default?: boolean;
  /** PUT only: the queued posts move onto the new slot times in order (otherwise they keep their times). */
  reshuffle?: boolean;
  /** Evergreen: a label of this workspace whose published posts refill empty slots; null turns it off. */
  evergreen_label_id?: string | null;
  evergreen_min_days?: number;
}

type QueueRow = typeof queues.$inferSelect;

export interface QueueResource {
  id: string;
  name: string;
  time_zone: string;
  slots: QueueSlot[];
  social_account_ids: string[];
  paused: boolean;
  is_default: boolean;
  evergreen_label_id: string | null;
  evergreen_min_days: number;
  created_at: string;
  updated_at: string;
}

export const presentQueue = (q: QueueRow): QueueResource => ({
  id: q.id,
  name: q.name,
  time_zone: q.timeZone,
  slots: q.slots,
  social_account_ids: q.socialAccountIds,
  paused: q.paused,
  is_default: q.isDefault,
  evergreen_label_id: q.evergreenLabelId,
  evergreen_min_days: q.evergreenMinDays,
  created_at: formatYmdHis(q.createdAt),
  updated_at: formatYmdHis(q.updatedAt),
});

/** Slots in week order, duplicates named (one slot per weekday and time). */
function normalizeSlots(bag: ErrorBag, slots: QueueSlot[]): QueueSlot[] {
  const seen = new Set<string>();
  slots.forEach((s, i) => {
    const key = `${s.weekday} ${s.time}`;
    if (seen.has(key)) bag.add(`slots.${i}`, "The slots field has a duplicate value.");
    seen.add(key);
  });
  return [...slots].sort((a, b) => a.weekday - b.weekday || a.time.localeCompare(b.time));
}

async function checkAccounts(ctx: WorkspaceContext, bag: ErrorBag, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const found = await ctx.db
    .select({ id: socialAccounts.id })
    .from(socialAccounts)
    .where(
      and(
        sql`${socialAccounts.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`,
        eq(socialAccounts.workspaceId, ctx.workspaceId),
      ),
    );
  const known = new Set(found.map((r) => r.id));
  ids.forEach((id, i) => {
    if (!known.has(id)) bag.add(`social_account_ids.${i}`, "The selected social account is invalid.");
  });
  if (new Set(ids).size !== ids.length)
    bag.add("social_account_ids", "The social account ids field has a duplicate value.");
}

async function checkEvergreenLabel(ctx: WorkspaceContext, bag: ErrorBag, id: string | null | undefined) {
  if (!id) return;
  const found = await ctx.db
    .select({ id: labels.id })
    .from(labels)
    .where(and(eq(labels.id, id), eq(labels.workspaceId, ctx.workspaceId)))
    .get();
  if (!found) bag.add("evergreen_label_id", "The selected evergreen label id is invalid.");
}

export async function listQueues(ctx: WorkspaceContext): Promise<QueueResource[]> {
  const rows = await ctx.db
    .select()
    .from(queues)
    .where(eq(queues.workspaceId, ctx.workspaceId))
    .orderBy(asc(queues.createdAt), asc(sql`rowid`));
  return rows.map(presentQueue);
}

/** A queue of this workspace by id, or the default one for `"default"`; 404 otherwise. */
export async function findQueue(ctx: WorkspaceContext, idOrDefault: string): Promise<QueueRow> {
  const row = await ctx.db
    .select()
    .from(queues)
    .where(
      and(
        eq(queues.workspaceId, ctx.workspaceId),
        idOrDefault === "default" ? eq(queues.isDefault, true) : eq(queues.id, idOrDefault),
      ),
    )
    .get();
  if (!row) throw notFound();
  return row;
}

export async function getQueue(ctx: WorkspaceContext, id: string): Promise<QueueResource> {
  return presentQueue(await findQueue(ctx, id));
}

/**
 * Creates a queue. The first queue of a workspace is its default; `is_default: true` moves the default here. The
 * 20-queue cap is checked by the INSERT itself (`… WHERE (SELECT count(*) …) < 20`), so concurrent creates cannot
 * pass it together.
 */
export async function createQueue(ctx: WorkspaceContext, input: QueueInput): Promise<QueueResource> {
  const bag = new ErrorBag();
  const slots = normalizeSlots(bag, input.slots);
  await checkAccounts(ctx, bag, input.social_account_ids ?? []);
  await checkEvergreenLabel(ctx, bag, input.evergreen_label_id);
  bag.throwIfAny();
  const now = ctx.now();
  const id = newId();
  const evergreenLabelId = input.evergreen_label_id ?? null;
  const evergreenMinDays = input.evergreen_min_days ?? EVERGREEN_MIN_DAYS_DEFAULT;
  const ws = ctx.workspaceId;
  const wantDefault = input.is_default === true;
  const count = sql`(SELECT count(*) FROM queues WHERE workspace_id = ${ws})`;
  const [, , inserted] = await ctx.db.batch([
    ctx.db
      .update(queues)
      .set({ isDefault: false, updatedAt: now })
      .where(
        and(
          eq(queues.workspaceId, ws),
          eq(queues.isDefault, wantDefault ? true : sql`2`),
          sql`${count} < ${QUEUES_MAX}`,
        ),
      ),
    // Values in the schema's column order (drizzle names every column of the table).
    ctx.db.insert(queues).select(
      sql`SELECT ${id}, ${ws}, ${input.name}, ${input.time_zone}, ${JSON.stringify(slots)},
        ${JSON.stringify(input.social_account_ids ?? [])}, ${input.paused ? 1 : 0},
        CASE WHEN ${wantDefault ? 1 : 0} = 1 OR NOT EXISTS (SELECT 1 FROM queues WHERE workspace_id = ${ws}
          AND is_default = 1) THEN 1 ELSE 0 END, ${evergreenLabelId}, ${evergreenMinDays}, NULL, ${now}, ${now}
      WHERE ${count} < ${QUEUES_MAX}`,
    ),
    ctx.db.select({ isDefault: queues.isDefault }).from(queues).where(eq(queues.id, id)),
  ]);
  const row = inserted[0];
  if (!row) throw validationError({ name: [`A workspace can have at most ${QUEUES_MAX} queues.`] });
  return presentQueue({
    id,
    workspaceId: ws,
    name: input.name,
    timeZone: input.time_zone,
    slots,
    socialAccountIds: input.social_account_ids ?? [],
    paused: input.paused ?? false,
    isDefault: row.isDefault,
    evergreenLabelId,
    evergreenMinDays,
    evergreenLastPostId: null,
    createdAt: now,
    updatedAt: now,
  });
}

/**
 * Replaces a queue's settings. Posts already queued keep their slots, unless `reshuffle: true` moves them onto the
 * new slot times in order; resuming a paused queue moves its overdue posts onto the next free slots, in order
 * (slot-moves.ts; both in the same batch as the settings). `is_default: true` moves the default here; false on the
 * default queue is refused (a workspace with queues always has one default).
 */
export async function updateQueue(ctx: WorkspaceContext, id: string, input: QueueInput): Promise<QueueResource> {
  const current = await findQueue(ctx, id);
  const bag = new ErrorBag();
  const slots = normalizeSlots(bag, input.slots);
  await checkAccounts(ctx, bag, input.social_account_ids ?? []);
  await checkEvergreenLabel(ctx, bag, input.evergreen_label_id);
  if (current.isDefault && input.is_default === false)
    bag.add("is_default", "Make another queue the default instead: a workspace with queues has one default.");
  bag.throwIfAny();
  const now = ctx.now();
  const isDefault = input.is_default ?? current.isDefault;
  const next: QueueRow = {
    ...current,
    name: input.name,
    timeZone: input.time_zone,
    slots,
    socialAccountIds: input.social_account_ids ?? [],
    paused: input.paused ?? current.paused,
    isDefault,
    // Absent: kept as it was (a client that never sets them leaves them alone); null turns evergreen off.
    evergreenLabelId: input.evergreen_label_id === undefined ? current.evergreenLabelId : input.evergreen_label_id,
    evergreenMinDays: input.evergreen_min_days ?? current.evergreenMinDays,
    updatedAt: now,
  };
  const moves = await queueMoves(ctx, current, next, input.reshuffle === true);
  await ctx.db
    .batch([
      ctx.db
        .update(queues)
        .set({ isDefault: false, updatedAt: now })
        .where(
          and(
            eq(queues.workspaceId, ctx.workspaceId),
            eq(queues.isDefault, isDefault && !current.isDefault ? true : sql`2`),
          ),
        ),
      ctx.db
        .update(queues)
        .set({
          name: next.name,
          timeZone: next.timeZone,
          slots: next.slots,
          socialAccountIds: next.socialAccountIds,
          paused: next.paused,
          isDefault: next.isDefault,
          evergreenLabelId: next.evergreenLabelId,
          evergreenMinDays: next.evergreenMinDays,
          updatedAt: now,
        })
        .where(and(eq(queues.id, current.id), eq(queues.workspaceId, ctx.workspaceId))),
      ...moves,
    ])
    .catch((err: unknown) => {
      throw isGuardFailure(err) ? conflict(QUEUE_FILLED) : err;
    });
  return presentQueue(next);
}

export const QUEUE_FILLED = "The queue filled up while its posts were moved; try again.";
export const NO_SLOTS_TO_MOVE_ONTO = "The queue has no posting times to move its posts onto.";

/**
 * The moves a PUT makes beside the settings: resume (paused → not paused) puts the overdue posts onto the next free
 * slots, then a reshuffle puts every queued post onto the new slot times in time order. The candidates are the new
 * slots' next times after now, enough for every post of the queue plus the spare concurrent adds share.
 */
async function queueMoves(ctx: WorkspaceContext, current: QueueRow, next: QueueRow, reshuffle: boolean) {
  const resuming = current.paused && !next.paused;
  if (!resuming && !reshuffle) return [];
  const now = ctx.now();
  const [counts] = await ctx.db
    .select({
      held: sql<number>`count(CASE WHEN ${queueSlots.at} > ${now} THEN 1 END)`,
      overdue: sql<number>`count(CASE WHEN ${queueSlots.at} <= ${now} AND ${queueSlots.postId} IN
        (SELECT id FROM posts WHERE queue_id = ${current.id} AND status = 'scheduled') THEN 1 END)`,
    })
    .from(queueSlots)
    .where(eq(queueSlots.queueId, current.id));
  const { held = 0, overdue = 0 } = counts ?? {};
  const moving = (resuming ? overdue : 0) + (reshuffle ? held : 0);
  if (moving === 0) return [];
  const candidates = upcomingSlotTimes(next.slots, next.timeZone, now, held + overdue + SLOT_CANDIDATES_SPARE);
  if (candidates.length === 0) throw validationError({ slots: [NO_SLOTS_TO_MOVE_ONTO] });
  return [
    ...(resuming ? resumeMoves(ctx, current.id, candidates) : []),
    ...(reshuffle ? reshuffleMoves(ctx, current.id, candidates) : []),
  ];
}

/** Deletes a queue (its held slots go with it; its posts keep their times, with no queue); when it was the default, the oldest remaining queue becomes it. */
export async function deleteQueue(ctx: WorkspaceContext, id: string): Promise<void> {
  const current = await findQueue(ctx, id);
  const ws = ctx.workspaceId;
  await ctx.db.batch([
    // Its posts stay scheduled at their times, as if scheduled by hand (docs/queues.md).
    ctx.db
      .update(posts)
      .set({ queueId: null })
      .where(and(eq(posts.workspaceId, ws), eq(posts.queueId, current.id))),
    ctx.db.delete(queues).where(and(eq(queues.id, current.id), eq(queues.workspaceId, ws))),
    ctx.db
      .update(queues)
      .set({ isDefault: true, updatedAt: ctx.now() })
      .where(
        and(
          sql`${queues.id} = (SELECT id FROM queues WHERE workspace_id = ${ws} ORDER BY created_at, rowid LIMIT 1)`,
          sql`NOT EXISTS (SELECT 1 FROM queues WHERE workspace_id = ${ws} AND is_default = 1)`,
        ),
      ),
  ]);
}

export interface SlotResource {
  at: string;
  local: string;
  post_id: string | null;
  reservation_id: string | null;
}

/**
 * GET /api/queues/{queue}/slots: the next `count` slots after `from` (default now), each with what holds it. One
 * read of the held slots in that window (by the (queue_id, at) index), whatever the queue holds elsewhere.
 */
export async function listQueueSlots(
  ctx: WorkspaceContext,
  id: string,
  opts: { from?: number; count: number },
): Promise<SlotResource[]> {
  const queue = await findQueue(ctx, id);
  const now = ctx.now();
  const from = opts.from ?? now;
  const times = upcomingSlotTimes(queue.slots, queue.timeZone, from - 1, opts.count);
  if (times.length === 0) return [];
  const held = await ctx.db
    .select({ at: queueSlots.at, id: queueSlots.id, postId: queueSlots.postId, expiresAt: queueSlots.expiresAt })
    .from(queueSlots)
    .where(
      and(
        eq(queueSlots.queueId, queue.id),
        gte(queueSlots.at, times[0]!),
        sql`${queueSlots.at} <= ${times[times.length - 1]!}`,
      ),
    );
  const byAt = new Map(held.map((h) => [h.at, h]));
  return times.map((at) => {
    const h = byAt.get(at);
    const reserved = h && h.postId === null && (h.expiresAt ?? 0) > now;
    return {
      at: formatYmdHis(at),
      local: localYmdHis(at, queue.timeZone),
      post_id: h?.postId ?? null,
      reservation_id: reserved ? h.id : null,
    };
  });
}
