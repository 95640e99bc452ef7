import { eq, sql } from "drizzle-orm";
import { type AccountTextLimits, accountTextLimits } from "../../catalog/rules";
import type { ServiceContext } from "../../context";
import { socialAccounts } from "../../db/schema";
import { log } from "../../lib/logger";
import { guardedFetch, type OutboundPolicy, readGuardedJson } from "../../lib/outbound-guard";

/**
 * A Mastodon account's character limit is its instance's (`GET /api/v2/instance` →
 * `configuration.statuses.max_characters`, `characters_reserved_per_url` for each link, and
 * `max_media_attachments`; Mastodon docs, "instance" methods and the Instance entity), and so are its media limits (`configuration.media_attachments` →
 * `image_size_limit`, `image_matrix_limit`, `video_size_limit`, `video_matrix_limit`, and `description_limit` — the
 * alt text's length, docs.joinmastodon.org/entities/Instance/#description_limit). Read when the account
 * connects (and reconnects), stored on the account's `meta` under those names (with `instance_checked_at`), and read
 * again at publish time once a day old. Public, unauthenticated; the instance is the client's choice, so the call
 * goes through the outbound guard.
 *
 * An answer is the whole truth: a limit it no longer states is stored as null and the catalog's default applies
 * again (Mastodon documents these fields as hints; compatible servers omit some). No answer (network error,
 * non-2xx, not a JSON object) keeps what is stored, or the defaults 500 / 23 / catalog when nothing is: a limit
 * that could not be read never blocks. Decisions: docs/decisions.md "Issue 16 — Mastodon instance media limits".
 */
export const INSTANCE_LIMITS_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const TIMEOUT_MS = 10_000;
const MAX_BYTES = 512 * 1024;

/** What one answer of the instance states; a missing field is a limit it does not state. */
export interface MastodonLimits {
  max_characters?: number;
  characters_reserved_per_url?: number;
  /** Attachments per status; lowers the catalog's cap of 4, never raises it. */
  max_media_attachments?: number;
  /** `configuration.media_attachments` (bytes, and width × height). */
  image_size_limit?: number;
  image_matrix_limit?: number;
  video_size_limit?: number;
  video_matrix_limit?: number;
  /** Characters of a media description (alt text); Mastodon's default 1,500. */
  description_limit?: number;
}

const MEDIA_LIMIT_KEYS = [
  "image_size_limit",
  "image_matrix_limit",
  "video_size_limit",
  "video_matrix_limit",
  "description_limit",
] as const;
const STATUS_LIMIT_KEYS = ["max_characters", "characters_reserved_per_url", "max_media_attachments"] as const;
/** Every limit an answer may state, as stored on the account's `meta`. */
const LIMIT_KEYS = [...STATUS_LIMIT_KEYS, ...MEDIA_LIMIT_KEYS] as const;

const positiveInt = (v: unknown) => (typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined);

export async function fetchMastodonLimits(
  policy: OutboundPolicy,
  instance: string,
  fetcher?: typeof fetch,
): Promise<MastodonLimits | null> {
  try {
    const res = await guardedFetch(
      `${instance.replace(/\/+$/, "")}/api/v2/instance`,
      { headers: { Accept: "application/json" } },
      { ...policy, timeoutMs: TIMEOUT_MS, maxResponseBytes: MAX_BYTES, fetcher },
    );
    if (!res.ok) return null;
    const body = await readGuardedJson<{
      configuration?: { statuses?: Record<string, unknown>; media_attachments?: Record<string, unknown> };
    } | null>(res);
    if (typeof body !== "object" || body === null || Array.isArray(body)) return null;
    // Missing or malformed values are limits the instance does not state: the catalog's defaults apply.
    const statuses = body.configuration?.statuses;
    const media = body.configuration?.media_attachments;
    const limits: MastodonLimits = {};
    for (const key of STATUS_LIMIT_KEYS) {
      const v = positiveInt(statuses?.[key]);
      if (v) limits[key] = v;
    }
    for (const key of MEDIA_LIMIT_KEYS) {
      const v = positiveInt(media?.[key]);
      if (v) limits[key] = v;
    }
    return limits;
  } catch (err) {
    log("warn", "mastodon_instance_unreadable", { instance, reason: err instanceof Error ? err.message : String(err) });
    return null;
  }
}

/**
 * The meta fields an answer stores: every limit, null where the answer does not state it, so that merging them
 * (`json_patch` at a refresh or a reconnect) removes a limit the instance stopped reporting instead of keeping it.
 */
export function limitsMeta(limits: MastodonLimits, now: number): Record<string, number | null> {
  const meta: Record<string, number | null> = { instance_checked_at: now };
  for (const key of LIMIT_KEYS) meta[key] = limits[key] ?? null;
  return meta;
}

/**
 * At publish time: reads the instance's limits again when the stored ones are a day old (or missing) and stores
 * them (one `json_patch` UPDATE, so other meta keys written meanwhile are kept). Returns the account meta to use.
 */
export async function refreshMastodonLimits(
  ctx: Pick<ServiceContext, "db" | "config" | "now">,
  account: { id: string; meta: Record<string, unknown> | null },
): Promise<Record<string, unknown>> {
  const meta = account.meta ?? {};
  const checkedAt = typeof meta.instance_checked_at === "number" ? meta.instance_checked_at : 0;
  const instance = typeof meta.instance === "string" ? meta.instance : "";
  if (!instance || ctx.now() - checkedAt < INSTANCE_LIMITS_MAX_AGE_MS) return meta;
  const limits = await fetchMastodonLimits({ allowPrivate: ctx.config.MEDIA_FETCH_ALLOW_PRIVATE }, instance);
  // Unreadable: try again at the next publish after a day, keep what is stored.
  const patch = limits ? limitsMeta(limits, ctx.now()) : { instance_checked_at: ctx.now() };
  await ctx.db
    .update(socialAccounts)
    .set({ meta: sql`json_patch(${socialAccounts.meta}, ${JSON.stringify(patch)})` })
    .where(eq(socialAccounts.id, account.id));
  return { ...meta, ...patch };
}

/**
 * Schedule-time validation: the stored instance limits of the Mastodon accounts among `rows` (one statement, one
 * bound parameter, only when there is a Mastodon row).
 */
export async function textLimitsByAccount(
  ctx: Pick<ServiceContext, "db">,
  rows: readonly { platform: string; socialAccountId: string }[],
): Promise<Map<string, AccountTextLimits>> {
  const ids = [...new Set(rows.filter((r) => r.platform === "mastodon").map((r) => r.socialAccountId))];
  const out = new Map<string, AccountTextLimits>();
  if (ids.length === 0) return out;
  const found = await ctx.db
    .select({ id: socialAccounts.id, meta: socialAccounts.meta })
    .from(socialAccounts)
    .where(sql`${socialAccounts.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`);
  for (const a of found) {
    const limits = accountTextLimits("mastodon", a.meta);
    if (limits) out.set(a.id, limits);
  }
  return out;
}
