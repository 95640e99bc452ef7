/**
 * Downloads for `POST /posts/{post}/media/from-url`, through the shared outbound guard (src/lib/outbound-guard.ts):
 * every hop checked, at most 3 redirects, one timeout for the whole download. The body is returned as a ByteSource
 * so the media pipeline can enforce its caps while streaming.
 */
import { guardedExchange, OutboundRefusedError, outboundRefusal } from "../lib/outbound-guard";
import { type ByteSource, streamSource } from "./byte-source";

export const MAX_REDIRECTS = 3;

/** What a refused download throws (the guard's error: refused, redirects, timeout, unreachable, too large). */
export { OutboundRefusedError as FetchRefusedError };

export interface FetchedBody {
  source: ByteSource;
  /** Final URL after redirects. */
  url: string;
  /** The answer's Content-Length, when it sent one (the body is still capped while it streams). */
  declaredBytes?: number;
  /** Releases the download; call when the body has been consumed or abandoned. */
  done: () => void;
}

/** Why a URL may not be fetched, or null when it may (the guard's rule). */
export const refusalReason = (url: URL, allowPrivate: boolean) => outboundRefusal(url, { allowPrivate });

/**
 * GETs `raw` under the guard. Throws FetchRefusedError for a refused destination, a non-2xx answer, too many
 * redirects, or a timeout (also while the body is read).
 */
export async function fetchMedia(
  raw: string,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<FetchedBody> {
  const { response, url } = await guardedExchange(
    raw,
    { headers: { Accept: "image/*,video/*;q=0.9,*/*;q=0.5" } },
    { allowPrivate: opts.allowPrivate, timeoutMs: opts.timeoutMs, maxRedirects: MAX_REDIRECTS },
  );
  if (!response.ok || !response.body) {
    await response.body?.cancel().catch(() => {});
    throw new OutboundRefusedError(`Answered ${response.status}.`, "refused");
  }
  const source = streamSource(response.body);
  const length = Number(response.headers.get("Content-Length") ?? Number.NaN);
  const declaredBytes = Number.isSafeInteger(length) && length >= 0 ? length : undefined;
  return { source, url, declaredBytes, done: () => void source.cancel() };
}
