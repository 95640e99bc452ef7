/**
 * The request body of an upload route, read to its end before the answer leaves (issue 15, docs/media.md
 * "Early rejections").
 *
 * Why: the media pipeline stops reading as soon as it knows the answer (a type refused from the first bytes, a
 * file past its cap, a post that does not exist). If the Worker then answers while the client is still sending,
 * workerd reads at most 64 KiB / 1 s more of the body and closes the connection; the client's unsent bytes make
 * the kernel answer with a TCP reset, and the client usually loses the 4xx it was sent (measured against
 * `wrangler dev`: fetch, curl and raw sockets saw ECONNRESET / "broken pipe" instead of the 422). Reading and
 * discarding the rest first makes the exchange an ordinary one: the client finishes sending, then reads the answer.
 *
 * Bounded, so a client cannot hold the Worker by sending forever: the drain reads at most `maxBytes` more (the
 * route's own size cap, so a refused file costs no more reading than an accepted one), stops after `maxMs` in all
 * or `idleMs` without a byte, and does not start when the declared Content-Length already says more is coming
 * than it would read. Past a bound the answer goes out at once and the client may see the reset it would see from
 * any server that stops lingering (nginx: `lingering_time` 30 s, `lingering_timeout` 5 s).
 */
import type { MiddlewareHandler } from "hono";
import type { Config } from "../config";
import { log } from "../lib/logger";
import type { AppEnv } from "../types";
import type { ByteSource } from "./byte-source";
import { formDataBoundary, MultipartReader } from "./multipart";

export interface DrainLimits {
  /** Most bytes the drain reads (beyond what the route read). */
  maxBytes: number;
  /** Most time the drain takes in all. */
  maxMs: number;
  /** Most time the drain waits for the next chunk. */
  idleMs: number;
}

/** A request's Content-Length as a number of bytes, or undefined when absent or not a number. */
export function declaredLength(header: string | undefined | null): number | undefined {
  const n = Number(header ?? Number.NaN);
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/** Time bounds of the drain (the byte bound is the route's cap). */
export const DRAIN_MAX_MS = 60_000;
export const DRAIN_IDLE_MS = 10_000;

export type DrainOutcome = "complete" | "too_large" | "too_slow" | "declared_too_large";

/**
 * Reads and discards what is left of `reader`'s stream, within `limits`; cancels the stream when a bound stops it.
 * `complete` when the body ended.
 */
export async function drainRest(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  limits: DrainLimits,
): Promise<{ outcome: DrainOutcome; bytes: number }> {
  const started = Date.now();
  let bytes = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stop = async (outcome: DrainOutcome) => {
    // Resolves a read still pending after a timeout, and tells the sender to stop.
    await reader.cancel().catch(() => {});
    return { outcome, bytes };
  };
  for (;;) {
    const wait = Math.min(limits.idleMs, limits.maxMs - (Date.now() - started));
    if (wait <= 0) return stop("too_slow");
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), wait);
    });
    const chunk = await Promise.race([reader.read(), timeout]).finally(() => clearTimeout(timer));
    if (chunk === "timeout") return stop("too_slow");
    if (chunk.done) return { outcome: "complete", bytes };
    bytes += chunk.value.byteLength;
    if (bytes > limits.maxBytes) return stop("too_large");
  }
}

/**
 * A ByteSource over `reader` that counts what it hands out. Its `cancel` only stops handing out: the stream stays
 * open for the drain, which owns it.
 */
function countingSource(reader: ReadableStreamDefaultReader<Uint8Array>) {
  let stopped = false;
  const counted = { bytes: 0 };
  const source: ByteSource = {
    async read() {
      while (!stopped) {
        const r = await reader.read();
        if (r.done) {
          stopped = true;
          return null;
        }
        if (r.value.byteLength === 0) continue;
        counted.bytes += r.value.byteLength;
        return r.value;
      }
      return null;
    },
    async cancel() {
      stopped = true;
    },
  };
  return { source, counted };
}

/**
 * Middleware of an upload route, after its authentication (an unauthenticated request gets no reading on its
 * behalf): hands the handler the multipart body as `c.get("uploadForm")` (null when the request is not
 * multipart/form-data), and once the answer is ready — success or error — drains the rest of the body within
 * `maxBytes(config)` and the time bounds before it leaves.
 */
export function drainedUploadBody(
  maxBytes: (config: Config) => number,
  time: Pick<DrainLimits, "maxMs" | "idleMs"> = { maxMs: DRAIN_MAX_MS, idleMs: DRAIN_IDLE_MS },
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const body = c.req.raw.body;
    if (!body) {
      c.set("uploadForm", null);
      return next();
    }
    const reader = body.getReader();
    const { source, counted } = countingSource(reader);
    const boundary = formDataBoundary(c.req.header("Content-Type"));
    c.set("uploadForm", boundary ? new MultipartReader(source, boundary) : null);
    await next();
    const limits = { maxBytes: maxBytes(c.get("service").config), ...time };
    const declared = Number(c.req.header("Content-Length") ?? Number.NaN);
    const result =
      declared - counted.bytes > limits.maxBytes
        ? { outcome: "declared_too_large" as const, bytes: await reader.cancel().then(() => 0) }
        : await drainRest(reader, limits);
    if (result.outcome !== "complete") {
      log("warn", "upload_drain_stopped", {
        request_id: c.get("requestId"),
        outcome: result.outcome,
        read_bytes: counted.bytes,
        drained_bytes: result.bytes,
      });
    }
  };
}
