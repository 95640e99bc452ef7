// Issue 15: an upload refused early (type from the first bytes, size past the cap, unknown post) gets its 4xx JSON
// while the client is still sending, and the Worker reads the rest of the body (bounded) before answering, so the
// client is never cut off by a reset (src/media/upload-body.ts). The client here is a pull stream that records how
// far it was read: "read to the end" is what keeps the connection ordinary; test/e2e/early-reject.test.mjs checks
// the same against `wrangler dev` over real sockets.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { drainRest } from "../../src/media/upload-body";
import { BASE, createTestWorkspace, type TestWorkspace } from "../support/harness";
import { insertPost, jpegHeader } from "./fixtures";

const MB = 1024 * 1024;
const CHUNK = 64 * 1024;
const BOUNDARY = "----early-reject";
const encoder = new TextEncoder();

interface SentBody {
  stream: ReadableStream<Uint8Array>;
  /** Bytes the Worker pulled so far. */
  pulled: () => number;
  /** The Worker read the body to its end. */
  ended: () => boolean;
  /** The Worker cancelled the body (what a client sees as the connection being cut). */
  cancelled: () => boolean;
  length: number;
}

/** A multipart body with one `media` file part: `head` bytes, then filler up to `length` bytes in all, pulled lazily. */
function sentBody(head: Uint8Array, length: number): SentBody {
  const prefix = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="media"; filename="file.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const suffix = encoder.encode(`\r\n--${BOUNDARY}--\r\n`);
  const fileBytes = length - prefix.length - suffix.length;
  let offset = 0; // within the whole body
  let ended = false;
  let cancelled = false;
  const filler = new Uint8Array(CHUNK).fill(7);
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset === 0) {
          controller.enqueue(prefix);
          controller.enqueue(head);
          offset = prefix.length + head.length;
          return;
        }
        const fileLeft = prefix.length + fileBytes - offset;
        if (fileLeft > 0) {
          const n = Math.min(CHUNK, fileLeft);
          controller.enqueue(filler.slice(0, n));
          offset += n;
          return;
        }
        if (!ended) {
          controller.enqueue(suffix);
          offset += suffix.length;
          ended = true;
          controller.close();
        }
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => offset, ended: () => ended, cancelled: () => cancelled, length };
}

async function post(path: string, body: SentBody, headers: Record<string, string> = {}) {
  const res = await exports.default.fetch(
    new Request(`${BASE}${path}`, {
      method: "POST",
      body: body.stream,
      headers: { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`, ...headers },
    }),
  );
  return { status: res.status, body: await res.json() };
}

const mediaError = (message: string) => ({ message, errors: { media: [message] } });
const TYPE_MESSAGE = "The media field must be a file of type: jpeg, png, gif, webp, mp4, mov.";
const IMAGE_TOO_LARGE = "The media field must not be greater than 10240 kilobytes.";
const text = encoder.encode("plain text, not an image ".repeat(8));

let ip = 0;
async function signedUploadPath(ws: TestWorkspace) {
  const res = await ws.api("POST", "/api/uploads");
  const url = new URL(res.body.upload_url);
  return {
    path: `${url.pathname}${url.search}`,
    headers: { "CF-Connecting-IP": `198.51.100.${++ip}` },
  };
}

describe("an upload refused early is answered after its body is read (no reset)", () => {
  it("signed upload, type refused from the first bytes: 422 JSON, the whole 8 MB body read, never cancelled", async () => {
    const ws = await createTestWorkspace();
    const { path, headers } = await signedUploadPath(ws);
    const body = sentBody(text, 8 * MB);
    const res = await post(path, body, headers);
    expect(res).toEqual({ status: 422, body: mediaError(TYPE_MESSAGE) });
    expect(body.ended()).toBe(true);
    expect(body.cancelled()).toBe(false);
    expect(body.pulled()).toBe(body.length);
  });

  it("signed upload, image past its 10 MB cap: 422 JSON, the 2 MB beyond the cap read too", async () => {
    const ws = await createTestWorkspace();
    const { path, headers } = await signedUploadPath(ws);
    const body = sentBody(jpegHeader(10, 10), 12 * MB);
    const res = await post(path, body, headers);
    expect(res).toEqual({ status: 422, body: mediaError(IMAGE_TOO_LARGE) });
    expect(body.ended()).toBe(true);
    expect(body.cancelled()).toBe(false);
  });

  it("post media: a refused type, an unknown post and a body that is not multipart are all read to the end", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const auth = { Authorization: `Bearer ${ws.key}` };

    const refused = sentBody(text, 8 * MB);
    expect(await post(`/api/posts/${postId}/media`, refused, auth)).toEqual({
      status: 422,
      body: mediaError(TYPE_MESSAGE),
    });
    expect([refused.ended(), refused.cancelled()]).toEqual([true, false]);

    const unknown = sentBody(jpegHeader(10, 10), 4 * MB);
    expect(await post(`/api/posts/${crypto.randomUUID()}/media`, unknown, auth)).toEqual({
      status: 404,
      body: { message: "Not found." },
    });
    expect([unknown.ended(), unknown.cancelled()]).toEqual([true, false]);

    // (Under the 1 MiB JSON body limit, which answers 413 for larger non-multipart bodies before the route.)
    const notMultipart = sentBody(text, 512 * 1024);
    expect(
      await post(`/api/posts/${postId}/media`, notMultipart, { ...auth, "Content-Type": "application/octet-stream" }),
    ).toEqual({ status: 422, body: mediaError("The media field is required.") });
    expect([notMultipart.ended(), notMultipart.cancelled()]).toEqual([true, false]);
  });

  it("a declared Content-Length past the drain bound (the route's cap) is answered at once, without reading on", async () => {
    const ws = await createTestWorkspace();
    const { path, headers } = await signedUploadPath(ws);
    // UPLOAD_MAX_BYTES is 50 MB: a 200 MB body would be drained past it, so it is not drained at all.
    const body = sentBody(text, 200 * MB);
    const res = await post(path, body, { ...headers, "Content-Length": String(body.length) });
    expect(res).toEqual({ status: 422, body: mediaError(TYPE_MESSAGE) });
    expect(body.cancelled()).toBe(true);
    expect(body.pulled()).toBeLessThan(MB);
  });

  it("no reading on behalf of a request whose signed URL is refused (403 before the body)", async () => {
    const ws = await createTestWorkspace();
    const { path, headers } = await signedUploadPath(ws);
    const body = sentBody(jpegHeader(10, 10), 8 * MB);
    const res = await post(path.replace(/signature=[0-9a-f]+/, `signature=${"0".repeat(64)}`), body, headers);
    expect(res).toEqual({ status: 403, body: { message: "Invalid signature." } });
    expect(body.ended()).toBe(false);
    expect(body.pulled()).toBeLessThan(MB);
  });
});

/** A stream of `chunks` chunks of `size` bytes, each after `delayMs` (0: at once); never ends when `endless`. */
function trickle(opts: { chunks: number; size: number; delayMs: number; endless?: boolean }) {
  let sent = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (sent >= opts.chunks) {
          if (opts.endless) return new Promise<void>(() => {}); // stalls: no byte, no end
          controller.close();
          return;
        }
        if (opts.delayMs > 0) await new Promise((r) => setTimeout(r, opts.delayMs));
        controller.enqueue(new Uint8Array(opts.size));
        sent++;
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { reader: stream.getReader(), cancelled: () => cancelled };
}

describe("drainRest bounds", () => {
  const roomy = { maxBytes: 10 * MB, maxMs: 5_000, idleMs: 5_000 };

  it("reads a body to its end within the bounds", async () => {
    const s = trickle({ chunks: 40, size: CHUNK, delayMs: 0 });
    expect(await drainRest(s.reader, roomy)).toEqual({ outcome: "complete", bytes: 40 * CHUNK });
    expect(s.cancelled()).toBe(false);
  });

  it("stops past maxBytes and cancels the body", async () => {
    const s = trickle({ chunks: 1_000, size: CHUNK, delayMs: 0 });
    expect(await drainRest(s.reader, { ...roomy, maxBytes: 10 * CHUNK })).toEqual({
      outcome: "too_large",
      bytes: 11 * CHUNK,
    });
    expect(s.cancelled()).toBe(true);
  });

  it("stops when no byte comes for idleMs (a client that stalls)", async () => {
    const s = trickle({ chunks: 3, size: 100, delayMs: 0, endless: true });
    expect(await drainRest(s.reader, { ...roomy, idleMs: 30 })).toEqual({ outcome: "too_slow", bytes: 300 });
    expect(s.cancelled()).toBe(true);
  });

  it("stops after maxMs in all (a client that trickles just fast enough to never be idle)", async () => {
    const s = trickle({ chunks: 1_000_000, size: 1, delayMs: 5 });
    const started = Date.now();
    const result = await drainRest(s.reader, { ...roomy, maxMs: 100, idleMs: 80 });
    expect(result.outcome).toBe("too_slow");
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
    expect(result.bytes).toBeGreaterThanOrEqual(1);
    expect(result.bytes).toBeLessThanOrEqual(20); // one byte per ≥ 5 ms
    expect(s.cancelled()).toBe(true);
  });
});
