import { and, eq, lte, or } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { idempotencyRecords } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";
import { conflict, validationError } from "../../lib/errors";

/**
 * `Idempotency-Key` on POST /api/posts (decisions §6), per workspace, in the verb's own two round trips (issue 28):
 * - the key's record is read in the verb's read batch; the response is stored in its write batch, in the same
 *   transaction as the post, so a record is never left without the response of the post it created;
 * - its 2xx response (status and body) is replayed for the same key and the same body for 24 h;
 * - the same key with another body: 422 `errors["Idempotency-Key"]`;
 * - a request that fails (422, 404, 500, …) writes no record, so the corrected request can reuse the key;
 * - of concurrent retries exactly one commits: the others' INSERT of the record fails on its primary key, their
 *   batch rolls back, and they replay the winner's response (one more read, on that path only);
 * - a record without a response (written in flight by an earlier version, which claimed first and stored the
 *   response last) answers 409, and may be taken over after a minute (the Worker died mid-request).
 * "Same body" means the same validated input: key order, whitespace and fields the API ignores do not matter
 * (issue 21: the raw body is never walked, so a deeply nested ignored field cannot overflow the hash).
 */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_IN_FLIGHT_STALE_MS = 60 * 1000;
export const IDEMPOTENCY_HEADER = "Idempotency-Key";
export const IDEMPOTENCY_MAX_KEY_LENGTH = 255;

export const IN_FLIGHT_MESSAGE = "A request with this Idempotency-Key is still being processed. Retry shortly.";
export const MISMATCH_MESSAGE = "This Idempotency-Key was already used with a different request body.";

export interface StoredResponse {
  status: number;
  body: unknown;
  replayed: boolean;
}

/** JSON with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` hash alike. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export function checkIdempotencyKey(key: string): void {
  const field = IDEMPOTENCY_HEADER;
  if (key.length === 0) throw validationError({ [field]: [`The ${field} header must not be empty.`] });
  if (key.length > IDEMPOTENCY_MAX_KEY_LENGTH)
    throw validationError({
      [field]: [`The ${field} header must not be greater than ${IDEMPOTENCY_MAX_KEY_LENGTH} characters.`],
    });
  if (!/^[\x21-\x7e]+$/.test(key))
    throw validationError({ [field]: [`The ${field} header must contain only visible ASCII characters.`] });
}

/** A request's key and the hash of its validated input. */
export interface IdempotencyClaim {
  key: string;
  requestHash: string;
}

type IdempotencyRecord = typeof idempotencyRecords.$inferSelect;

/** Checks the key (422 when malformed) and hashes the validated input. */
export async function idempotencyClaim(key: string, body: unknown): Promise<IdempotencyClaim> {
  checkIdempotencyKey(key);
  return { key, requestHash: await sha256Hex(canonicalJson(body)) };
}

/** The key's record, for the verb's read batch. */
export function readIdempotencyRecord(ctx: WorkspaceContext, claim: IdempotencyClaim) {
  return ctx.db
    .select()
    .from(idempotencyRecords)
    .where(and(eq(idempotencyRecords.workspaceId, ctx.workspaceId), eq(idempotencyRecords.key, claim.key)));
}

/**
 * What an existing record means for this request: its stored response to replay, a 422 (another body) or a 409
 * (still in flight) thrown, or `null` when there is none or it may be taken over (expired, or a claim abandoned
 * over a minute ago) — then the request runs, and `recordStatements` replaces it.
 */
export function replayOf(existing: IdempotencyRecord | undefined, claim: IdempotencyClaim, now: number) {
  if (!existing) return null;
  const expired = existing.createdAt <= now - IDEMPOTENCY_TTL_MS;
  const abandoned = existing.responseStatus === null && existing.createdAt <= now - IDEMPOTENCY_IN_FLIGHT_STALE_MS;
  if (expired || abandoned) return null;
  if (existing.requestHash !== claim.requestHash) throw validationError({ [IDEMPOTENCY_HEADER]: [MISMATCH_MESSAGE] });
  if (existing.responseStatus === null) throw conflict(IN_FLIGHT_MESSAGE);
  return {
    status: existing.responseStatus,
    body: JSON.parse(existing.responseBody ?? "null") as unknown,
    replayed: true,
  } satisfies StoredResponse;
}

/**
 * The statements that store the response in the verb's write batch, before its own writes: the workspace's expired
 * records and the record being taken over (only if it is still the one read) are deleted, then the record is
 * INSERTed with the response. The batch is one transaction, so the record commits with what the response describes
 * or not at all: a request that fails leaves the key free, and of two concurrent requests with the same key the
 * second INSERT fails on the primary key and rolls its whole batch back (the caller then reads the winner's record
 * and replays it: `afterLostRace`).
 */
export function recordStatements(
  ctx: WorkspaceContext,
  claim: IdempotencyClaim,
  taken: IdempotencyRecord | undefined,
  status: number,
  body: unknown,
) {
  const now = ctx.now();
  const stale = lte(idempotencyRecords.createdAt, now - IDEMPOTENCY_TTL_MS);
  return [
    ctx.db
      .delete(idempotencyRecords)
      .where(
        and(
          eq(idempotencyRecords.workspaceId, ctx.workspaceId),
          taken
            ? or(stale, and(eq(idempotencyRecords.key, claim.key), eq(idempotencyRecords.createdAt, taken.createdAt)))
            : stale,
        ),
      ),
    ctx.db.insert(idempotencyRecords).values({
      workspaceId: ctx.workspaceId,
      key: claim.key,
      requestHash: claim.requestHash,
      responseStatus: status,
      responseBody: JSON.stringify(body),
      createdAt: now,
    }),
  ] as const;
}

/**
 * The write batch failed: if another request stored a record under the key meanwhile (the primary key refused ours),
 * its response is the answer (replayed, or 422/409 as `replayOf` says); otherwise the failure was ours.
 */
export async function afterLostRace(ctx: WorkspaceContext, claim: IdempotencyClaim, err: unknown) {
  const replay = replayOf(await readIdempotencyRecord(ctx, claim).get(), claim, ctx.now());
  if (!replay) throw err;
  return replay;
}
