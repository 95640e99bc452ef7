import type { MiddlewareHandler } from "hono";
import { concatBytes } from "../media/byte-source";
import { AppError } from "./errors";

/**
 * The one way the Worker reads a request body it keeps (issue 25): never more than the route's bound in memory.
 * The declared `Content-Length` is judged first (a larger one is refused without reading a byte); then the stream
 * is read chunk by chunk and cancelled as soon as the bound is passed, so a chunked body with no length costs at
 * most the bound plus one chunk. The streaming upload routes have their own caps (src/media/upload-body.ts).
 */
export const payloadTooLarge = () => new AppError("payload_too_large", "Payload too large.");

/** A request, or an answer read the same way (src/platforms/connect.ts). */
type Body = Pick<Request, "headers" | "body">;

/** True when the request declares more than `maxBytes` (no byte is read). */
export function declaresMoreThan(request: Body, maxBytes: number): boolean {
  const declared = request.headers.get("Content-Length");
  if (declared === null) return false;
  const n = Number(declared);
  return !Number.isFinite(n) || n > maxBytes;
}

/** Reads at most `maxBytes` of the body; past that (declared or streamed) throws 413 and cancels the stream. */
export async function readBoundedBytes(request: Body, maxBytes: number): Promise<Uint8Array> {
  if (declaresMoreThan(request, maxBytes)) throw payloadTooLarge();
  const body = request.body;
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => {});
      throw payloadTooLarge();
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

export async function readBoundedText(request: Body, maxBytes: number): Promise<string> {
  return new TextDecoder().decode(await readBoundedBytes(request, maxBytes));
}

/**
 * Middleware: reads the body (bounded) before the handler and hands the handler a request over those bytes, so
 * whatever parses it later (the zod-openapi JSON validator, the MCP transport) reads memory, not the network.
 */
export function boundedBody(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    if (!c.req.raw.body) return next();
    const bytes = await readBoundedBytes(c.req.raw, maxBytes);
    c.req.raw = new Request(c.req.raw, { body: bytes });
    return next();
  };
}

/** Middleware: refuses a declared length past `maxBytes` at once; the route reads the stream itself, bounded. */
export function declaredBodyLimit(maxBytes: number): MiddlewareHandler {
  return async (_c, next) => {
    if (declaresMoreThan(_c.req.raw, maxBytes)) throw payloadTooLarge();
    return next();
  };
}
