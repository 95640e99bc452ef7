import type { WorkspaceContext } from "../../context";
import { log } from "../../lib/logger";
import { MemoryBusyError, memoryBusy, memoryGate } from "../../lib/memory-budget";
import { FetchRefusedError, fetchMedia } from "../../media/fetch-url";
import { ingestMedia, MediaRejectedError } from "../../media/ingest";
import { getPost } from "../posts/get-post";
import { postResourceQuery, presentPostQueryResult } from "../posts/load-posts";
import { unpublishableProblems } from "./file-rules";
import { ingestLimits, mediaTarget } from "./media-target";
import { type MediaRow, mediaRow, recordMedia } from "./record-media";
import { normalizeAlt } from "./upload-post-media";

/** Downloads running at once per request (Workers allow six open connections; images are buffered whole). */
export const FROM_URL_CONCURRENCY = 4;

/** Runs `fn` over `items` with at most `limit` in flight; results keep the input order. */
async function mapPool<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

function filenameOf(url: string): string {
  try {
    const last = new URL(url).pathname.split("/").filter(Boolean).pop() ?? "";
    return decodeURIComponent(last).slice(0, 255);
  } catch {
    return "";
  }
}

/**
 * POST /posts/{post}/media/from-url: downloads every URL concurrently through the media pipeline, attaches the
 * successes in the order given, and lists every failure (unreachable, refused address, wrong type, too large, not
 * accepted by the post's enabled platforms) in `failed_urls`. Each file takes its share of the isolate's memory
 * budget before it is buffered; when one cannot get it in time the whole request answers 503 + Retry-After (the
 * files already stored are deleted, nothing is attached), so no URL is silently lost to a busy isolate.
 */
export async function attachMediaFromUrls(
  ctx: WorkspaceContext,
  postId: string,
  urls: string[],
  /** Issue 29: each URL's alt text, in order (null/absent: none). */
  alts: (string | null)[] = [],
) {
  const altOf = alts.map((a) => normalizeAlt(a));
  const target = await mediaTarget(ctx, postId);
  const limits = ingestLimits(ctx.config, target.accept);
  const gate = memoryGate(ctx.config);
  let busy = false;
  const results = await mapPool(urls, FROM_URL_CONCURRENCY, async (url, i): Promise<MediaRow | null> => {
    let fetched: Awaited<ReturnType<typeof fetchMedia>> | null = null;
    try {
      fetched = await fetchMedia(url, {
        timeoutMs: ctx.config.MEDIA_FETCH_TIMEOUT_SECONDS * 1000,
        allowPrivate: ctx.config.MEDIA_FETCH_ALLOW_PRIVATE,
      });
      const stored = await ingestMedia(ctx.env.MEDIA_BUCKET, fetched.source, {
        filename: filenameOf(fetched.url),
        limits,
        memory: { gate, declaredBytes: fetched.declaredBytes },
      });
      const row = { ...mediaRow(ctx, stored), alt: altOf[i] ?? null };
      // Issue 16: a file an enabled network can never publish (and that cannot be fitted) is a failed URL.
      const problems = unpublishableProblems(target, row);
      if (problems.length === 0) return row;
      await ctx.env.MEDIA_BUCKET.delete(row.path);
      log("info", "media_url_failed", { request_id: ctx.requestId, reason: problems.join(" ") });
      return null;
    } catch (err) {
      if (err instanceof MemoryBusyError) {
        busy = true;
        return null;
      }
      const known = err instanceof FetchRefusedError || err instanceof MediaRejectedError;
      log(known ? "info" : "warn", "media_url_failed", {
        request_id: ctx.requestId,
        reason: err instanceof Error ? err.message : String(err),
      });
      return null;
    } finally {
      await fetched?.source.cancel();
      fetched?.done();
    }
  });
  const rows = results.filter((r): r is MediaRow => r !== null);
  if (busy) {
    if (rows.length) await ctx.env.MEDIA_BUCKET.delete(rows.map((r) => r.path));
    throw memoryBusy();
  }
  // With rows to write, the updated post comes back as the write batch's last statement (issue 28); without, one read.
  const written = rows.length ? await recordMedia(ctx, rows, postId, [postResourceQuery(ctx, postId)]) : null;
  return {
    post: written
      ? presentPostQueryResult(ctx, written.at(-1) as Parameters<typeof presentPostQueryResult>[1])
      : await getPost(ctx, postId),
    attached_count: rows.length,
    failed_urls: urls.filter((_, i) => results[i] === null),
  };
}
