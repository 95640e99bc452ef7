// Issue 15: an upload refused early (its type from the first bytes, its size past the cap) gets the full 4xx JSON
// answer over a real socket, while the client is still sending — never a reset. Runs against `wrangler dev` (the
// same workerd HTTP server as local development) with clients that write a large body as fast as they can, that
// stream it slowly, and Node's fetch. Before src/media/upload-body.ts, each of these saw ECONNRESET / EPIPE.
// Issue 35: an answer given before the body was read (an unknown token, no key, a declared length past the bound)
// leaves while a chunked body that never ends is still being sent, instead of after all of it (src/lib/unread-body.ts).
// Runs under `node --test` (part of `npm test`); loopback only.
import assert from "node:assert/strict";
import net from "node:net";
import { before, test } from "node:test";
import { createWorkspace, sharedStack } from "./shared-stack.mjs";

const MB = 1024 * 1024;
const BOUNDARY = "----e2e-early-reject";
const TYPE_MESSAGE = "The media field must be a file of type: jpeg, png, gif, webp, mp4, mov.";
const IMAGE_TOO_LARGE = "The media field must not be greater than 10240 kilobytes.";
const mediaError = (message) => ({ message, errors: { media: [message] } });

/** A multipart body of `length` bytes: one `media` file part starting with `head`. */
function multipartBody(head, length) {
  const prefix = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="media"; filename="file.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const suffix = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const body = Buffer.alloc(length, 7);
  prefix.copy(body);
  head.copy(body, prefix.length);
  suffix.copy(body, length - suffix.length);
  return body;
}

const TEXT = Buffer.from("plain text, not an image ".repeat(8));
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);

/**
 * The HTTP/1.1 answer read so far from a raw socket, once it has fully arrived (by Content-Length, or a chunked
 * body up to its last chunk): `{status, contentType, text}`; null while more is to come.
 */
function wholeAnswer(received) {
  const end = received.indexOf("\r\n\r\n");
  if (end < 0) return null;
  const head = received.subarray(0, end).toString("latin1").split("\r\n");
  const fields = Object.fromEntries(
    head.slice(1).map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
  );
  let rest = received.subarray(end + 4);
  let text;
  if (fields["transfer-encoding"] === "chunked") {
    if (!rest.toString("latin1").endsWith("0\r\n\r\n")) return null;
    const parts = [];
    for (;;) {
      const eol = rest.indexOf("\r\n");
      const size = Number.parseInt(rest.subarray(0, eol).toString("latin1"), 16);
      if (!size) break;
      parts.push(rest.subarray(eol + 2, eol + 2 + size));
      rest = rest.subarray(eol + 2 + size + 2);
    }
    text = Buffer.concat(parts).toString("utf8");
  } else {
    const length = Number(fields["content-length"]);
    if (rest.length < length) return null;
    text = rest.subarray(0, length).toString("utf8");
  }
  return { status: Number(head[0].split(" ")[1]), contentType: fields["content-type"], text };
}

/**
 * POSTs `body` over a raw socket — all at once, or in 64 KiB chunks `delayMs` apart — while reading whatever comes
 * back. Resolves with the parsed answer once its whole body has arrived; rejects when the connection breaks first.
 */
function rawPost(port, path, body, { headers = {}, delayMs = 0 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = Buffer.alloc(0);
    let sent = 0;
    let done = false;
    const finish = (fn) => {
      if (done) return;
      done = true;
      socket.destroy();
      fn();
    };
    socket.on("data", (d) => {
      received = Buffer.concat([received, d]);
      const answer = wholeAnswer(received);
      if (answer)
        finish(() =>
          resolve({ status: answer.status, contentType: answer.contentType, body: JSON.parse(answer.text), sent }),
        );
    });
    socket.on("error", (err) => finish(() => reject(new Error(`${err.code} after sending ${sent} bytes`))));
    socket.on("close", () => finish(() => reject(new Error(`closed without a full answer after sending ${sent}`))));
    const lines = [
      `POST ${path} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}`,
      `Content-Length: ${body.length}`,
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    if (delayMs === 0) {
      socket.write(body, () => {
        sent = body.length;
      });
      return;
    }
    const step = () => {
      if (done || socket.destroyed) return;
      const chunk = body.subarray(sent, sent + 64 * 1024);
      if (chunk.length === 0) return;
      socket.write(chunk);
      sent += chunk.length;
      setTimeout(step, delayMs);
    };
    step();
  });
}

let worker;
let key;
let ip = 0;

before(async () => {
  const stack = sharedStack();
  worker = { base: stack.base, port: Number(new URL(stack.base).port) };
  const boot = await createWorkspace(stack.base, "Early reject");
  key = boot.body?.plain_token;
  assert.ok(key, "workspace bootstrap");
});

/** A fresh signed upload URL's path, and a client IP of its own (the per-IP window stays out of the way). */
async function signedUpload() {
  const res = await fetch(`${worker.base}/api/uploads`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}` },
  });
  assert.equal(res.status, 201);
  const url = new URL((await res.json()).upload_url);
  return { path: `${url.pathname}${url.search}`, headers: { "CF-Connecting-IP": `198.51.100.${++ip}` } };
}

const cases = [
  { name: "type refused from the first bytes", head: TEXT, message: TYPE_MESSAGE },
  { name: "image past the 10 MB cap", head: JPEG, message: IMAGE_TOO_LARGE },
];

for (const c of cases) {
  test(`signed upload, ${c.name}: a client writing 24 MB at once reads the whole 422`, async () => {
    const { path, headers } = await signedUpload();
    const res = await rawPost(worker.port, path, multipartBody(c.head, 24 * MB), { headers });
    assert.deepEqual(
      { status: res.status, contentType: res.contentType, body: res.body },
      { status: 422, contentType: "application/json", body: mediaError(c.message) },
    );
  });

  test(`signed upload, ${c.name}: a client streaming 16 MB slowly reads the whole 422`, async () => {
    const { path, headers } = await signedUpload();
    const res = await rawPost(worker.port, path, multipartBody(c.head, 16 * MB), { headers, delayMs: 2 });
    assert.deepEqual({ status: res.status, body: res.body }, { status: 422, body: mediaError(c.message) });
  });

  test(`signed upload, ${c.name}: Node's fetch gets the 422, not a network error`, async () => {
    const { path, headers } = await signedUpload();
    const res = await fetch(`${worker.base}${path}`, {
      method: "POST",
      body: multipartBody(c.head, 24 * MB),
      headers: { ...headers, "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` },
    });
    assert.deepEqual({ status: res.status, body: await res.json() }, { status: 422, body: mediaError(c.message) });
  });
}

test("POST /api/posts/{post}/media: a refused type streamed fast and an unknown post both get their full answer", async () => {
  const json = async (method, p, body) => {
    const res = await fetch(`${worker.base}${p}`, {
      method,
      headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    assert.ok(res.status < 300, `${method} ${p} → ${res.status}`);
    return res.json();
  };
  const account = await json("POST", "/api/social-accounts", {
    platform: "x",
    display_name: "E2E",
    username: "e2e",
    credentials: { access_token: "t" },
  });
  const post = await json("POST", "/api/posts", {
    content: "Hello",
    platforms: [{ social_account_id: account.id, content_type: "x_post" }],
  });
  const auth = { Authorization: `Bearer ${key}` };
  const refused = await rawPost(worker.port, `/api/posts/${post.id}/media`, multipartBody(TEXT, 24 * MB), {
    headers: auth,
  });
  assert.deepEqual({ status: refused.status, body: refused.body }, { status: 422, body: mediaError(TYPE_MESSAGE) });
  const unknown = await rawPost(worker.port, `/api/posts/${crypto.randomUUID()}/media`, multipartBody(JPEG, 24 * MB), {
    headers: auth,
  });
  assert.deepEqual({ status: unknown.status, body: unknown.body }, { status: 404, body: { message: "Not found." } });
});

/**
 * POSTs a chunked body that never ends (16 KiB chunks 20 ms apart) over a raw socket, reading what comes back.
 * Like any HTTP/1.1 client it stops sending once an answer starts to arrive (RFC 2616 §8.2.2, kept in RFC 9112
 * §9.5: "An HTTP/1.1 (or later) client sending a message-body SHOULD monitor the network connection for an error
 * status while it is transmitting the request. If the client sees an error status, it SHOULD immediately cease
 * transmitting the body"). Resolves with the answer (status, the whole body, how much had been sent and when) once
 * it has fully arrived; rejects when the connection breaks first or after `timeoutMs` without a whole answer.
 * The pace matters: after an answer workerd reads at most 64 KiB more of a body the Worker cancelled and then
 * closes; bytes still unread then make the kernel reset the connection, which can cost the client the answer
 * (src/media/upload-body.ts). A client that sends faster than that linger absorbs may see a reset instead.
 */
function endlessChunkedPost(port, path, headers, { chunkBytes = 16 * 1024, delayMs = 20, timeoutMs = 15_000 } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const started = Date.now();
    let received = Buffer.alloc(0);
    let sent = 0;
    let done = false;
    const finish = (fn) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      fn();
    };
    const timer = setTimeout(
      () => finish(() => reject(new Error(`${path}: no whole answer in ${timeoutMs} ms; ${sent} bytes sent`))),
      timeoutMs,
    );
    let answering = false;
    socket.on("data", (d) => {
      answering = true;
      received = Buffer.concat([received, d]);
      const answer = wholeAnswer(received);
      if (answer) finish(() => resolve({ ...answer, sent, ms: Date.now() - started }));
    });
    socket.on("error", (err) => finish(() => reject(new Error(`${path}: ${err.code} after sending ${sent} bytes`))));
    socket.on("close", () =>
      finish(() => reject(new Error(`${path}: closed without a full answer after sending ${sent}`))),
    );
    const lines = [
      `POST ${path} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      "Transfer-Encoding: chunked",
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
    const chunk = Buffer.alloc(chunkBytes, 0x61);
    const step = () => {
      if (done || answering || socket.destroyed) return;
      socket.write(`${chunk.length.toString(16)}\r\n`);
      socket.write(chunk);
      socket.write("\r\n");
      sent += chunk.length;
      // The next chunk goes after the event loop has polled the socket: an answer that has arrived (and the close
      // after it) is read before anything more is written, so a write into the closed connection cannot lose it.
      setTimeout(() => setImmediate(step), delayMs);
    };
    step();
  });
}

test("answers given before the body is read leave while an endless chunked body is still being sent", async () => {
  const link = await fetch(`${worker.base}/api/connect-links`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: "{}",
  }).then((r) => r.json());
  const linkPath = new URL(link.url).pathname;
  const form = { "Content-Type": "application/x-www-form-urlencoded", "Sec-Fetch-Site": "same-origin" };
  const multipart = { "Content-Type": `multipart/form-data; boundary=${BOUNDARY}` };
  const cases = [
    [`/connect/select/${"a".repeat(43)}`, form, 404, "<h1>Selection expired</h1>"],
    [`/connect/${"b".repeat(43)}/start`, form, 404, "<h1>Link expired</h1>"],
    [`/api/posts/${crypto.randomUUID()}/media`, multipart, 401, '{"message":"Unauthenticated."}'],
    [`${linkPath}/start`, form, 413, "<h1>The form was too large</h1>"],
  ];
  for (const [path, headers, status, text] of cases) {
    const res = await endlessChunkedPost(worker.port, path, { ...headers, "CF-Connecting-IP": `198.51.100.${++ip}` });
    assert.deepEqual(
      { path, status: res.status, text: res.text.includes(text) },
      { path, status, text: true },
      `${path}: ${res.text.slice(0, 200)}`,
    );
    // Before issue 35 the answer waited for the body's end, which never comes (the request timed out).
    assert.ok(res.ms < 5000, `${path}: answered after ${res.ms} ms`);
  }
});
