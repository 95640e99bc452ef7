import { and, asc, eq } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { inJsonArray } from "../../db/json-params";
import { postPlatforms, posts, socialAccounts } from "../../db/schema";
import type { PostPlatformStatus } from "../../db/schema/posts";
import { notFound } from "../../lib/errors";
import { errorFields, log } from "../../lib/logger";
import { InFlight } from "../../lib/shared-wait";
import { adapterFor } from "../../platforms";
import {
  type AdapterContext,
  type Metric,
  MetricsUnavailable,
  type PlatformAdapter,
  PlatformError,
} from "../../platforms/types";
import { type AccountRow, loadAccount, needsRefresh, refreshAccount } from "../../publishing/accounts";
import { createAdapterContext } from "../../publishing/context";

/**
 * `GET /api/posts/{post}/metrics` (api.md, decisions §11): one entry per enabled row, fetched in parallel from
 * each platform; successes cached in KV for 300 s per post platform, failures never cached.
 *
 * KV `METRICS_CACHE`: key `metrics:<post_platform_id>` → `{fetched_at, platform_post_id, metrics}`, TTL 300 s.
 */
export const METRICS_CACHE_TTL_SECONDS = 300;
/** Platforms without post-level metrics (api.md). */
export const METRICS_UNSUPPORTED_PLATFORMS = new Set(["tiktok", "linkedin"]);

/**
 * decisions §11, plus `platform_access_denied` (an addition, docs/metrics.md): the network refuses this app the
 * post's metrics for good (X on an access tier without read access), so asking again would only fail again.
 */
export type UnsupportedReason = "not_published" | "platform_not_supported" | "api_error" | "platform_access_denied";

export interface MetricsEntry {
  post_platform_id: string;
  platform: string;
  status: PostPlatformStatus;
  platform_post_id: string | null;
  platform_url: string | null;
  metrics: Metric[] | { unsupported: true; reason: UnsupportedReason };
}

export interface PostMetrics {
  post_id: string;
  platforms: MetricsEntry[];
}

interface CachedMetrics {
  fetched_at: number;
  platform_post_id: string;
  metrics: Metric[];
}

export const metricsCacheKey = (postPlatformId: string) => `metrics:${postPlatformId}`;

type Row = typeof postPlatforms.$inferSelect;

export async function getPostMetrics(
  ctx: WorkspaceContext,
  postId: string,
  opts: { adapterContext?: Partial<AdapterContext> } = {},
): Promise<PostMetrics> {
  const post = await ctx.db
    .select({ id: posts.id })
    .from(posts)
    .where(and(eq(posts.id, postId), eq(posts.workspaceId, ctx.workspaceId)))
    .get();
  if (!post) throw notFound();

  const rows = await ctx.db
    .select()
    .from(postPlatforms)
    .where(and(eq(postPlatforms.postId, postId), eq(postPlatforms.enabled, true)))
    .orderBy(asc(postPlatforms.position), asc(postPlatforms.createdAt));
  const accountIds = [...new Set(rows.map((r) => r.socialAccountId))];
  const accounts =
    accountIds.length === 0
      ? []
      : await ctx.db.select().from(socialAccounts).where(inJsonArray(socialAccounts.id, accountIds));
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const actx = createAdapterContext(ctx, opts.adapterContext);

  const platforms = await Promise.all(rows.map((row) => entryFor(ctx, actx, row, byId.get(row.socialAccountId))));
  return { post_id: post.id, platforms };
}

async function entryFor(
  ctx: WorkspaceContext,
  actx: AdapterContext,
  row: Row,
  account: AccountRow | undefined,
): Promise<MetricsEntry> {
  const entry = (metrics: MetricsEntry["metrics"]): MetricsEntry => ({
    post_platform_id: row.id,
    platform: row.platform,
    status: row.status,
    platform_post_id: row.platformPostId,
    platform_url: row.platformUrl,
    metrics,
  });
  const unsupported = (reason: UnsupportedReason) => entry({ unsupported: true, reason });

  if (METRICS_UNSUPPORTED_PLATFORMS.has(row.platform)) return unsupported("platform_not_supported");
  if (row.status !== "published" || !row.platformPostId) return unsupported("not_published");
  const adapter = adapterFor(row.platform);
  if (adapter && !adapter.metrics) return unsupported("platform_not_supported");

  const key = metricsCacheKey(row.id);
  const cached = await ctx.env.METRICS_CACHE.get<CachedMetrics>(key, "json");
  if (
    cached &&
    cached.platform_post_id === row.platformPostId &&
    ctx.now() - cached.fetched_at < METRICS_CACHE_TTL_SECONDS * 1000
  ) {
    return entry(cached.metrics);
  }

  if (!adapter?.metrics || !account?.credentials || account.status !== "connected") return unsupported("api_error");
  try {
    // Concurrent requests for the same row share one platform call (and one token refresh) in this isolate.
    const flight = `${row.id}:${row.platformPostId}`;
    return entry(await platformCalls.run(flight, () => fetchAndCache(ctx, actx, adapter, account, row, key)));
  } catch (err) {
    if (err instanceof MetricsUnavailable) return unsupported(err.reason);
    log("warn", "metrics_failed", {
      request_id: ctx.requestId,
      post_platform_id: row.id,
      platform: row.platform,
      ...errorFields(err),
    });
    return unsupported("api_error");
  }
}

/** Row metrics being fetched from a platform, per `post_platform_id:platform_post_id`. */
const platformCalls = new InFlight<Metric[]>();

/** Asks the platform (refreshing the token first or once on an auth failure) and caches the answer for 300 s. */
async function fetchAndCache(
  ctx: WorkspaceContext,
  actx: AdapterContext,
  adapter: PlatformAdapter,
  account: AccountRow,
  row: Row,
  key: string,
): Promise<Metric[]> {
  const metricsOf = adapter.metrics;
  const platformPostId = row.platformPostId;
  if (!metricsOf || !platformPostId) throw new Error("metrics asked of a row that has none");
  let loaded = await loadAccount(ctx, account);
  let refreshed = false;
  const refresh = async () => {
    refreshed = true;
    const outcome = await refreshAccount(ctx, actx, adapter, loaded);
    if (!outcome.ok) throw new PlatformError("auth", "Session expired.");
    loaded = outcome.loaded;
  };
  if (needsRefresh(adapter, loaded, ctx.now())) await refresh();
  const call = () =>
    metricsOf(actx, {
      platformPostId,
      platformUrl: row.platformUrl,
      contentType: row.contentType,
      account: loaded.account,
    });
  let metrics: Metric[];
  try {
    metrics = await call();
  } catch (err) {
    if (!(err instanceof PlatformError) || err.kind !== "auth" || refreshed || !adapter.refresh) throw err;
    await refresh();
    metrics = await call();
  }
  const value: CachedMetrics = { fetched_at: ctx.now(), platform_post_id: platformPostId, metrics };
  await ctx.env.METRICS_CACHE.put(key, JSON.stringify(value), { expirationTtl: METRICS_CACHE_TTL_SECONDS });
  return metrics;
}
