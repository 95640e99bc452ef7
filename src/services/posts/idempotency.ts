import { and, eq, isNull, lt } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { idempotencyRecords } from "../../db/schema";
import { sha256Hex } from "../../lib/crypto";
import { conflict, validationError } from "../../lib/errors";
import { errorFields, log } from "../../lib/logger";

/**
 * `Idempotency-Key` on POST /api/posts (decisions §6), per workspace:
 * - the first request INSERTs a claim row (response_status null) before doing anything, so of concurrent retries
 *   exactly one runs; the others get 409 while it is in flight;
 * - its 2xx response (status and body) is stored and replayed for the same key and the same body for 24 h;
 * - the same key with another body: 422 `errors["Idempotency-Key"]`;
 * - a request that fails (422, 404, 500, …) releases the claim, so the corrected request can reuse the key;
 * - a claim left in flight for over a minute (the Worker died mid-request) may be taken over.
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

/** Runs `run` at most once per (workspace, key, body) within 24 h; replays its stored response otherwise. */
export async function withIdempotency(
  ctx: WorkspaceContext,
  key: string,
  body: unknown,
  run: () => Promise<{ status: number; body: unknown }>,
): Promise<StoredResponse> {
  checkIdempotencyKey(key);
  const requestHash = await sha256Hex(canonicalJson(body));
  const where = and(eq(idempotencyRecords.workspaceId, ctx.workspaceId), eq(idempotencyRecords.key, key));

  let claimedAt: number | null = null;
  for (let attempt = 0; attempt < 3 && claimedAt === null; attempt++) {
    const now = ctx.now();
    const inserted = await ctx.db
      .insert(idempotencyRecords)
      .values({
        workspaceId: ctx.workspaceId,
        key,
        requestHash,
        responseStatus: null,
        responseBody: null,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ createdAt: idempotencyRecords.createdAt });
    if (inserted.length) {
      claimedAt = now;
      break;
    }
    const existing = await ctx.db.select().from(idempotencyRecords).where(where).get();
    if (!existing) continue; // released between our insert and read: try again
    const expired = existing.createdAt <= now - IDEMPOTENCY_TTL_MS;
    const abandoned = existing.responseStatus === null && existing.createdAt <= now - IDEMPOTENCY_IN_FLIGHT_STALE_MS;
    if (expired || abandoned) {
      // Take the old record over only if nobody else did first.
      const taken = await ctx.db
        .update(idempotencyRecords)
        .set({ requestHash, responseStatus: null, responseBody: null, createdAt: now })
        .where(and(where, eq(idempotencyRecords.createdAt, existing.createdAt)))
        .returning({ createdAt: idempotencyRecords.createdAt });
      if (taken.length) claimedAt = now;
      continue;
    }
    if (existing.requestHash !== requestHash) throw validationError({ [IDEMPOTENCY_HEADER]: [MISMATCH_MESSAGE] });
    if (existing.responseStatus === null) throw conflict(IN_FLIGHT_MESSAGE);
    return { status: existing.responseStatus, body: JSON.parse(existing.responseBody ?? "null"), replayed: true };
  }
  if (claimedAt === null) throw conflict(IN_FLIGHT_MESSAGE);

  const release = () =>
    ctx.db
      .delete(idempotencyRecords)
      .where(and(where, eq(idempotencyRecords.createdAt, claimedAt!), isNull(idempotencyRecords.responseStatus)));
  let result: { status: number; body: unknown };
  try {
    result = await run();
  } catch (err) {
    await release().catch((e) =>
      log("error", "idempotency_release_failed", { request_id: ctx.requestId, ...errorFields(e) }),
    );
    throw err;
  }
  if (result.status >= 200 && result.status < 300) {
    await ctx.db
      .update(idempotencyRecords)
      .set({ responseStatus: result.status, responseBody: JSON.stringify(result.body) })
      .where(and(where, eq(idempotencyRecords.createdAt, claimedAt)));
  } else {
    await release();
  }
  // Housekeeping: this workspace's expired records.
  ctx.waitUntil(
    ctx.db
      .delete(idempotencyRecords)
      .where(
        and(
          eq(idempotencyRecords.workspaceId, ctx.workspaceId),
          lt(idempotencyRecords.createdAt, ctx.now() - IDEMPOTENCY_TTL_MS),
        ),
      )
      .then(() => undefined),
  );
  return { ...result, replayed: false };
}
