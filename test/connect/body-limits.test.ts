// Issue 25 (2): every body the Worker reads is bounded before it is read. The client is a pull stream that records
// how much the Worker took: a streamed (chunked, no Content-Length) body past the bound is answered 413 after at
// most the bound plus a chunk; a declared Content-Length past it is answered without reading; a hosted page whose
// token is unknown answers before reading anything.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { CONNECT_FORM_MAX_BYTES } from "../../src/connect/pages";
import worker from "../../src/index";
import { currentFake, fakeOrigin } from "../support/fake-fetch";
import { BASE, createTestWorkspace, fileClientIp, type TestWorkspace } from "../support/harness";
import { clearCookies, connectThroughApi } from "../support/oauth/browser";
import { fakeXOAuth } from "../support/oauth/fake-oauth";
import { installOAuthNetwork } from "../support/oauth/install";

const MB = 1024 * 1024;
const CHUNK = 4 * 1024;

interface SentBody {
  stream: ReadableStream<Uint8Array>;
  pulled: () => number;
}

/** `length` bytes of `fill` (a form field by default), pulled lazily in 4 KiB chunks. */
function sentBody(length: number, head = "csrf=x&platform=x&pad="): SentBody {
  const prefix = new TextEncoder().encode(head);
  const filler = new Uint8Array(CHUNK).fill(0x61);
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (offset === 0) {
          controller.enqueue(prefix);
          offset = prefix.length;
          return;
        }
        const n = Math.min(CHUNK, length - offset);
        if (n <= 0) {
          controller.close();
          return;
        }
        controller.enqueue(filler.slice(0, n));
        offset += n;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => offset };
}

async function post(path: string, body: SentBody, headers: Record<string, string>) {
  const res = await exports.default.fetch(
    new Request(`${BASE}${path}`, { method: "POST", body: body.stream, headers }),
  );
  return { status: res.status, type: res.headers.get("content-type"), text: await res.text() };
}

const FORM = { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin" };

async function linkToken(ws: TestWorkspace): Promise<string> {
  const res = await ws.api("POST", "/api/connect-links", {});
  expect(res.status).toBe(201);
  return new URL(res.body.url).pathname.split("/").pop()!;
}

describe("bodies are bounded before they are read", () => {
  it("a streamed form past 16 KiB on a hosted page is 413 (an HTML page) after at most the bound and a chunk", async () => {
    const ws = await createTestWorkspace();
    const token = await linkToken(ws);
    for (const path of [`/connect/${token}/start`, `/connect/${token}/bluesky`]) {
      const body = sentBody(64 * MB);
      const res = await post(path, body, FORM);
      expect(res.status).toBe(413);
      expect(res.type).toBe("text/html; charset=utf-8");
      expect(res.text).toContain("<h1>The form was too large</h1>");
      expect(body.pulled()).toBeLessThanOrEqual(CONNECT_FORM_MAX_BYTES + 2 * CHUNK);
    }
  });

  it("a declared Content-Length past the bound is refused without reading a byte", async () => {
    const ws = await createTestWorkspace();
    const token = await linkToken(ws);
    const body = sentBody(64 * MB);
    const res = await post(`/connect/${token}/start`, body, { ...FORM, "Content-Length": String(64 * MB) });
    expect(res.status).toBe(413);
    expect(body.pulled()).toBeLessThanOrEqual(CHUNK);
    const json = sentBody(64 * MB, "{");
    const api = await post("/api/labels", json, {
      "Content-Type": "application/json",
      Authorization: `Bearer ${ws.key}`,
      "Content-Length": String(64 * MB),
    });
    expect(api.status).toBe(413);
    expect(JSON.parse(api.text)).toEqual({ message: "Payload too large." });
    expect(json.pulled()).toBeLessThanOrEqual(CHUNK);
  });

  it("an unknown selection or link token is answered before its form is read", async () => {
    for (const path of [`/connect/select/${"a".repeat(43)}`, `/connect/${"b".repeat(43)}/start`]) {
      const body = sentBody(64 * MB);
      const res = await post(path, body, FORM);
      expect(res.status).toBe(404);
      expect(res.type).toBe("text/html; charset=utf-8");
      expect(body.pulled()).toBeLessThanOrEqual(CHUNK);
    }
  });

  it("JSON and MCP bodies, multipart ones too, stop at 1 MiB", async () => {
    const ws = await createTestWorkspace();
    const auth = { Authorization: `Bearer ${ws.key}` };
    for (const [path, type] of [
      ["/api/labels", "application/json"],
      ["/api/labels", "multipart/form-data; boundary=x"],
      ["/mcp", "application/json"],
      ["/mcp", "multipart/form-data; boundary=x"],
    ] as const) {
      const body = sentBody(64 * MB, "{");
      const res = await post(path, body, {
        ...auth,
        "Content-Type": type,
        Accept: "application/json, text/event-stream",
      });
      expect([path, type, res.status]).toEqual([path, type, 413]);
      expect(JSON.parse(res.text)).toEqual({ message: "Payload too large." });
      expect(body.pulled()).toBeLessThanOrEqual(MB + 2 * CHUNK);
    }
  });
});

/**
 * A body that never ends: a chunk whenever the reader asks, until it is cancelled. `cancelled` resolves with the
 * bytes handed out by then; `settled` is that or "still open" after `ms`.
 */
function endlessBody(head = "csrf=x&platform=x&pad=") {
  const prefix = new TextEncoder().encode(head);
  const filler = new Uint8Array(CHUNK).fill(0x61);
  let offset = 0;
  let onCancel: (n: number) => void = () => {};
  const cancelled = new Promise<number>((resolve) => {
    onCancel = resolve;
  });
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        controller.enqueue(offset === 0 ? prefix : filler);
        offset += offset === 0 ? prefix.length : CHUNK;
      },
      cancel() {
        onCancel(offset);
      },
    },
    { highWaterMark: 0 },
  );
  const settled = (ms: number) =>
    Promise.race([
      cancelled.then((bytes) => ({ cancelled: true, small: bytes <= 2 * CHUNK })),
      new Promise((resolve) => setTimeout(() => resolve("still open"), ms)),
    ]);
  return { stream, settled };
}

describe("an early answer cancels the body it did not read (issue 35)", () => {
  it("unknown tokens, a missing key, a declared length past the bound: answered, and the endless body cancelled", async () => {
    const ws = await createTestWorkspace();
    const token = await linkToken(ws);
    const multipart = { "Content-Type": "multipart/form-data; boundary=x" };
    const cases: [string, Record<string, string>, number, string][] = [
      [`/connect/select/${"a".repeat(43)}`, FORM, 404, "<h1>Selection expired</h1>"],
      [`/connect/${"b".repeat(43)}/start`, FORM, 404, "<h1>Link expired</h1>"],
      [
        `/connect/${token}/start`,
        { ...FORM, "Content-Length": String(64 * MB) },
        413,
        "<h1>The form was too large</h1>",
      ],
      [`/api/posts/${crypto.randomUUID()}/media`, multipart, 401, '{"message":"Unauthenticated."}'],
      [`/api/uploads/${crypto.randomUUID()}?expires=1&signature=x`, multipart, 403, '{"message":"Invalid signature."}'],
      [
        "/api/labels",
        { "Content-Type": "application/json", Authorization: `Bearer ${ws.key}`, "Content-Length": String(64 * MB) },
        413,
        '{"message":"Payload too large."}',
      ],
    ];
    for (const [path, headers, status, text] of cases) {
      const body = endlessBody();
      // The Worker's own fetch handler, in this isolate: the body is the test's stream itself, so its cancel() runs
      // only when the Worker cancels it (through exports.default the runtime would drop it after the answer anyway).
      const ctx = createExecutionContext();
      const answer = await worker.fetch!(
        new Request(`${BASE}${path}`, {
          method: "POST",
          body: body.stream,
          headers: { "CF-Connecting-IP": fileClientIp(), ...headers },
        }) as Request<unknown, IncomingRequestCfProperties>,
        env as unknown as Cloudflare.Env,
        ctx,
      );
      const res = { status: answer.status, text: await answer.text() };
      await waitOnExecutionContext(ctx);
      expect({ path, status: res.status, text: res.text.includes(text) }).toEqual({ path, status, text: true });
      expect({ path, body: await body.settled(2000) }).toEqual({ path, body: { cancelled: true, small: true } });
    }
  });
});

describe("answers read during connect are bounded too", () => {
  it("a token endpoint that streams without end fails the connect after at most 1 MiB", async () => {
    const ws = await createTestWorkspace();
    const uninstall = installOAuthNetwork(
      fakeXOAuth({ authOrigin: "https://x-auth.fake", apiOrigin: "https://x.fake" }),
    );
    const genuine = currentFake("https://x.fake")!;
    const endless = sentBody(64 * MB, '{"access_token":"');
    const restore = fakeOrigin("https://x.fake", async (req) =>
      new URL(req.url).pathname === "/2/oauth2/token"
        ? new Response(endless.stream, { headers: { "Content-Type": "application/json" } })
        : genuine(req),
    );
    try {
      const { callback } = await connectThroughApi(ws, { platform: "x" });
      expect(callback.status).toBe(400);
      expect(callback.text).toContain("X answered with more data than expected. Try again later.");
      expect(endless.pulled()).toBeLessThanOrEqual(MB + 2 * CHUNK);
      expect((await ws.api("GET", "/api/social-accounts")).body).toEqual([]);
    } finally {
      restore();
      uninstall();
      clearCookies();
    }
  });
});
