import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import worker from "../../src/index";
import {
  ABANDONED_WAITER_MS,
  DECODE_RESERVE_BYTES,
  isolateMemoryBudget,
  MemoryBudget,
  MemoryBusyError,
  memoryGate,
  SHARE_LEASE_MS,
} from "../../src/lib/memory-budget";
import { variantFor } from "../../src/media/variants";
import { fakeOrigin } from "../support/fake-fetch";
import { createTestWorkspace, type TestWorkspace, waitFor } from "../support/harness";
import { bucketKeys, GIF_1X1, insertPost, makePng, mediaForm, mediaRows } from "./fixtures";

/**
 * Issue 25 finding 6: every upload route takes its share of the isolate's memory budget before it buffers a byte.
 * The requests go through the Worker's own fetch handler with a small budget configured (env overrides), and the
 * test holds the budget itself first, so who waits does not depend on timing.
 */
const SMALL_BUDGET = 4 * 1024 * 1024;
const overrides = (waitSeconds: number) => ({
  MEDIA_MEMORY_BUDGET_BYTES: String(SMALL_BUDGET),
  MEDIA_MEMORY_WAIT_SECONDS: String(waitSeconds),
});
const budgetConfig = { MEDIA_MEMORY_BUDGET_BYTES: SMALL_BUDGET };
const budget = () => isolateMemoryBudget(budgetConfig);

async function send(
  path: string,
  init: RequestInit & { headers?: Record<string, string> },
  vars: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  const ctx = createExecutionContext();
  const res = await worker.fetch!(
    new Request(`https://api.test${path}`, init) as Request<unknown, IncomingRequestCfProperties>,
    { ...env, ...vars },
    ctx,
  );
  const text = await res.text();
  await waitOnExecutionContext(ctx);
  const headers = Object.fromEntries(res.headers);
  delete headers["x-request-id"];
  delete headers["server-timing"];
  delete headers["x-d1-bookmark"];
  delete headers["x-ratelimit-limit"];
  delete headers["x-ratelimit-remaining"];
  return { status: res.status, headers, body: text ? JSON.parse(text) : null };
}

/** A multipart body as bytes, so the request carries its Content-Length (as clients' uploads do). */
async function multipart(file: Uint8Array, name: string) {
  const encoded = new Response(mediaForm(file, name));
  return {
    body: new Uint8Array(await encoded.arrayBuffer()),
    contentType: encoded.headers.get("Content-Type") as string,
  };
}

async function upload(ws: TestWorkspace, postId: string, file: Uint8Array, name: string, vars: Record<string, string>) {
  const { body, contentType } = await multipart(file, name);
  return send(
    `/api/posts/${postId}/media`,
    {
      method: "POST",
      body,
      headers: {
        Authorization: `Bearer ${ws.key}`,
        "Content-Type": contentType,
        "Content-Length": String(body.length),
      },
    },
    vars,
  );
}

/** The 503 to a signed upload URL (no credentials but the URL's token). */
const BUSY = {
  status: 503,
  headers: { "content-type": "application/json", "retry-after": "5" },
  body: { message: "The server is busy with other media. Retry after 5 seconds." },
};
/** The same 503 to a request with an API key: a private answer (src/middleware/private-answers.ts). */
const BUSY_WITH_KEY = {
  ...BUSY,
  headers: { ...BUSY.headers, "cache-control": "no-store", vary: "Authorization, Cookie" },
};

afterEach(() => {
  expect(budget().stats()).toMatchObject({ inUse: 0, waiting: 0 });
});

describe("the isolate's memory budget for media (issue 25)", () => {
  it("concurrent direct uploads over the budget wait their turn, none is lost, and the accounting returns to zero", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const files = await Promise.all([1, 2, 3, 4, 5].map((n) => makePng(n + 2, 3)));
    const hold = await budget().acquire(SMALL_BUDGET, 0);
    budget().resetPeak();
    const before = budget().stats();
    const answers = Promise.all(files.map((f, i) => upload(ws, postId, f, `p${i}.png`, overrides(60))));
    // Every request reached the gate and waits: nothing of theirs is buffered yet.
    await waitFor(() => budget().stats().waiting === files.length);
    expect(await mediaRows(ws.workspaceId)).toEqual([]);
    hold();
    const results = await answers;
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const rows = await mediaRows(ws.workspaceId);
    expect(rows.map((r) => r.original_filename).sort()).toEqual(["p0.png", "p1.png", "p2.png", "p3.png", "p4.png"]);
    // Each PNG's share (its bytes twice + a decode's reserve) is cut to the whole budget: they ran one at a time.
    expect(budget().stats()).toEqual({
      capacity: SMALL_BUDGET,
      inUse: 0,
      waiting: 0,
      peakInUse: SMALL_BUDGET,
      granted: before.granted + files.length,
      refused: before.refused,
      reclaimed: before.reclaimed,
    });
  });

  it("files that decode nothing share the budget by their declared size: never more at once than fits", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    // A ≈ 200 KB GIF (stored as it is): its share is its request's Content-Length twice.
    const gif = new Uint8Array(GIF_1X1.length + 200_000);
    gif.set(GIF_1X1);
    const share = 2 * (await multipart(gif, "g0.gif")).body.length;
    // Leave room for two shares, not three.
    const held = SMALL_BUDGET - 2 * share - 1;
    const hold = await budget().acquire(held, 0);
    budget().resetPeak();
    const before = budget().stats();
    const answers = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => upload(ws, postId, gif, `g${i}.gif`, overrides(60))),
    );
    hold();
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await mediaRows(ws.workspaceId)).toHaveLength(6);
    const after = budget().stats();
    expect(after.granted - before.granted).toBe(6);
    expect(after.peakInUse).toBeGreaterThanOrEqual(held + share);
    expect(after.peakInUse).toBeLessThanOrEqual(held + 2 * share);
  });

  it("without a wait, an upload over the budget answers 503 + Retry-After, stores nothing, and succeeds when sent again", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const png = await makePng(4, 4);
    const keysBefore = await bucketKeys();
    const hold = await budget().acquire(SMALL_BUDGET, 0);
    const refused = budget().stats().refused;
    expect(await upload(ws, postId, png, "a.png", overrides(0))).toEqual(BUSY_WITH_KEY);
    expect(budget().stats().refused).toBe(refused + 1);
    expect(await mediaRows(ws.workspaceId)).toEqual([]);
    expect(await bucketKeys()).toEqual(keysBefore);
    hold();
    expect((await upload(ws, postId, png, "a.png", overrides(0))).status).toBe(200);
    expect(await mediaRows(ws.workspaceId)).toHaveLength(1);
  });

  it("signed upload: 503 + Retry-After while the budget is spent, and the URL stays usable", async () => {
    const ws = await createTestWorkspace();
    const issued = await ws.api("POST", "/api/uploads");
    const url = new URL(issued.body.upload_url);
    const post = (vars: Record<string, string>) =>
      send(
        `${url.pathname}${url.search}`,
        {
          method: "POST",
          body: mediaForm(GIF_1X1, "s.gif"),
          headers: { "CF-Connecting-IP": "198.51.100.77" },
        },
        vars,
      );
    const hold = await budget().acquire(SMALL_BUDGET, 0);
    expect(await post(overrides(0))).toEqual(BUSY);
    expect(await mediaRows(ws.workspaceId)).toEqual([]);
    hold();
    const stored = await post(overrides(0));
    expect(stored.status).toBe(201);
    expect(stored.body).toMatchObject({ upload_token: issued.body.upload_token, type: "image" });
  });

  it("from URL: one file without its share makes the whole request 503 + Retry-After; nothing is kept or attached", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const origin = `https://budget-${crypto.randomUUID().slice(0, 8)}.fake`;
    fakeOrigin(
      origin,
      () =>
        new Response(GIF_1X1, { headers: { "Content-Type": "image/gif", "Content-Length": String(GIF_1X1.length) } }),
    );
    const keysBefore = await bucketKeys();
    const fromUrl = (vars: Record<string, string>) =>
      send(
        `/api/posts/${postId}/media/from-url`,
        {
          method: "POST",
          body: JSON.stringify({ urls: [`${origin}/a.gif`, `${origin}/b.gif`] }),
          headers: { Authorization: `Bearer ${ws.key}`, "Content-Type": "application/json" },
        },
        vars,
      );
    const hold = await budget().acquire(SMALL_BUDGET, 0);
    expect(await fromUrl(overrides(0))).toEqual(BUSY_WITH_KEY);
    expect(await bucketKeys()).toEqual(keysBefore);
    expect(await mediaRows(ws.workspaceId)).toEqual([]);
    hold();
    const ok = await fromUrl(overrides(60));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ attached_count: 2, failed_urls: [] });
  });

  it("a publish-time fit takes its share before it reads the original; busy, it throws (the queue retries)", async () => {
    const png = await makePng(40, 30);
    const path = `medias/${crypto.randomUUID()}.png`;
    await env.MEDIA_BUCKET.put(path, png);
    const source = { path, mimeType: "image/png", size: png.length, width: 40, height: 30 };
    const spec = { maxBytes: 1_000_000, formats: ["image/jpeg" as const] };
    const config = { ...loadConfig(env), MEDIA_MEMORY_BUDGET_BYTES: SMALL_BUDGET, MEDIA_MEMORY_WAIT_SECONDS: 0 };
    const hold = await budget().acquire(1, 0);
    await expect(variantFor(env.MEDIA_BUCKET, source, spec, memoryGate(config))).rejects.toBeInstanceOf(
      MemoryBusyError,
    );
    hold();
    budget().resetPeak();
    const variant = await variantFor(env.MEDIA_BUCKET, source, spec, memoryGate(config));
    expect(variant).toMatchObject({ mimeType: "image/jpeg", width: 40, height: 30 });
    // Its share: the original twice plus a decode's reserve, cut to the budget.
    expect(budget().stats().peakInUse).toBe(Math.min(SMALL_BUDGET, 2 * png.length + DECODE_RESERVE_BYTES));
  });
});

describe("MemoryBudget", () => {
  it("grants in arrival order, refuses after the wait, and a large share leaving the queue lets smaller ones through", async () => {
    const b = new MemoryBudget(100);
    const first = await b.acquire(60, 0);
    await expect(b.acquire(50, 0)).rejects.toBeInstanceOf(MemoryBusyError);
    const big = b.acquire(80, 60_000);
    const small = b.acquire(10, 60_000);
    // First come, first served: the small share waits behind the big one although it would fit now.
    expect(b.stats()).toMatchObject({ inUse: 60, waiting: 2 });
    first();
    first(); // a second release does nothing
    // The release grants both, in order, at once.
    expect(b.stats()).toMatchObject({ inUse: 90, waiting: 0, peakInUse: 90 });
    const releaseBig = await big;
    const releaseSmall = await small;
    releaseBig();
    releaseSmall();
    // A share larger than the budget is cut to it: it runs alone rather than never.
    const whole = await b.acquire(1_000, 0);
    expect(b.stats()).toMatchObject({ inUse: 100 });
    whole();
    expect(b.stats()).toMatchObject({ inUse: 0, waiting: 0, granted: 4, refused: 1 });
  });

  it("a share not free within its wait is refused and leaves the queue; the ones behind it move up", async () => {
    let now = 0;
    const clock = {
      now: () => now,
      sleep: async (ms: number) => {
        now += ms;
      },
    };
    const b = new MemoryBudget(10, clock);
    const most = await b.acquire(8, 0);
    const big = b.acquire(5, 1000);
    const small = b.acquire(2, 5000);
    expect(b.stats()).toMatchObject({ inUse: 8, waiting: 2 });
    await expect(big).rejects.toBeInstanceOf(MemoryBusyError);
    expect(now).toBeGreaterThanOrEqual(1000);
    // With the big share gone from the head, the small one fits now.
    const releaseSmall = await small;
    expect(now).toBeLessThan(5000);
    expect(b.stats()).toMatchObject({ inUse: 10, waiting: 0, refused: 1 });
    releaseSmall();
    most();
    expect(b.stats()).toMatchObject({ inUse: 0, waiting: 0 });
  });

  // A request the runtime cancels never runs its `finally`: its share, or its place in the queue, must not block the
  // isolate for good (a video's share is the whole budget). The clock's sleep never returns for a cancelled request.
  it("a waiter that stopped polling (its request was cancelled) is dropped and blocks nobody", async () => {
    let now = 0;
    let cancelled = false;
    const clock = {
      now: () => now,
      sleep: (ms: number) =>
        cancelled
          ? new Promise<void>(() => {})
          : Promise.resolve().then(() => {
              now += ms;
            }),
    };
    const b = new MemoryBudget(10, clock);
    const hold = await b.acquire(10, 0);
    cancelled = true;
    void b.acquire(10, 60_000);
    await Promise.resolve();
    cancelled = false;
    expect(b.stats()).toMatchObject({ inUse: 10, waiting: 1 });
    now += ABANDONED_WAITER_MS + 1;
    hold();
    expect(b.stats()).toMatchObject({ inUse: 0, waiting: 0, reclaimed: 1 });
    const next = await b.acquire(10, 0);
    expect(b.stats()).toMatchObject({ inUse: 10, waiting: 0 });
    next();
  });

  it("a share held past its lease (its request was cancelled) is taken back; the late release does nothing", async () => {
    let now = 0;
    const b = new MemoryBudget(10, { now: () => now, sleep: async () => {} });
    const leaked = await b.acquire(10, 0);
    await expect(b.acquire(1, 0)).rejects.toBeInstanceOf(MemoryBusyError);
    now += SHARE_LEASE_MS + 1;
    const next = await b.acquire(10, 0);
    expect(b.stats()).toMatchObject({ inUse: 10, reclaimed: 1 });
    leaked();
    expect(b.stats()).toMatchObject({ inUse: 10 });
    next();
    expect(b.stats()).toMatchObject({ inUse: 0, waiting: 0 });
  });
});
