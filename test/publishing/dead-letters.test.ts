import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PublishMessage } from "../../src/publishing/messages";
import { call, createTestWorkspace, YMDHIS } from "../support/harness";
import { type Fakes, installFakes, seedMastodonAccount, seedXAccount } from "./platforms";
import { deliver, readPost, readRow, seedPost } from "./support";

const admin = { Authorization: `Bearer ${env.ADMIN_TOKEN}` };
let fakes: Fakes;
let sent: PublishMessage[];
let points: AnalyticsEngineDataPoint[];

beforeEach(async () => {
  // The delivery helper names messages msg-0, msg-1, … in every test; real message ids are unique.
  await env.DB.prepare("DELETE FROM dead_letters").run();
  fakes = installFakes();
  sent = [];
  points = [];
  // Replays are recorded instead of handed to the local queue (its consumer would run in the background).
  vi.spyOn(env.PUBLISH_QUEUE, "sendBatch").mockImplementation(async (messages) => {
    for (const m of messages) sent.push(m.body as PublishMessage);
    return {} as QueueSendBatchResponse;
  });
  vi.spyOn(env.PUBLISH_EVENTS, "writeDataPoint").mockImplementation((p) => void points.push(p!));
});
afterEach(() => {
  fakes.uninstall();
  vi.restoreAllMocks();
});

/** A post whose Mastodon row published and whose X row ran out of deliveries with a 503 as its last error. */
async function deadLetteredPost() {
  const ws = await createTestWorkspace();
  const m = await seedMastodonAccount(ws);
  const x = await seedXAccount(ws);
  const post = await seedPost(ws, {
    content: "dead letter",
    rows: [
      { accountId: m, platform: "mastodon", contentType: "mastodon_post" },
      { accountId: x, platform: "x", contentType: "x_post" },
    ],
  });
  await deliver([post.messages[0]]);
  await env.DB.prepare(
    "UPDATE post_platforms SET status = 'publishing', error_message = 'X is unavailable (HTTP 503).' WHERE id = ?",
  )
    .bind(post.rowIds[1])
    .run();
  const result = await deliver([post.messages[1], { not: "a publish job" }], {
    queue: "publish-jobs-dlq",
    attempts: 6,
  });
  expect(result.ackAll).toBe(true);
  return { ws, post };
}

describe("dead-lettered publish jobs", () => {
  it("the dead-letter consumer stores each message once, with the error its row ended with", async () => {
    const { post } = await deadLetteredPost();
    // A second delivery of the same messages (queues deliver at least once) stores nothing new.
    await deliver([post.messages[1], { not: "a publish job" }], { queue: "publish-jobs-dlq", attempts: 6 });

    const res = await call("GET", "/api/admin/dead-letters?state=all", { headers: admin });
    expect(res.status).toBe(200);
    const created_at = expect.stringMatching(YMDHIS);
    // Newest first; the two arrived together, so by id, descending.
    expect(res.body.data).toEqual([
      {
        id: "msg-1",
        queue: "publish-jobs-dlq",
        post_platform_id: null,
        workspace_id: null,
        attempts: 6,
        error: "message did not parse",
        body: { not: "a publish job" },
        created_at,
        replayed_at: null,
      },
      {
        id: "msg-0",
        queue: "publish-jobs-dlq",
        post_platform_id: post.rowIds[1],
        workspace_id: post.messages[1]!.workspace_id,
        attempts: 6,
        error: "X is unavailable (HTTP 503).",
        body: post.messages[1],
        created_at,
        replayed_at: null,
      },
    ]);
    const workspace = post.messages[1]!.workspace_id;
    expect(points).toEqual([
      { indexes: ["mastodon"], blobs: ["mastodon", "published", workspace], doubles: [1] },
      { indexes: ["x"], blobs: ["x", "dead_lettered", workspace], doubles: [1] },
    ]);
  });

  it("replay sends the job again: the row is pending, the post publishing, and the next delivery publishes it", async () => {
    const { post } = await deadLetteredPost();
    expect((await readPost(post.postId))!.status).toBe("partially_published");

    const res = await call("POST", "/api/admin/dead-letters/replay", { body: {}, headers: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ replayed: ["msg-0"], unreadable: ["msg-1"] });
    expect(sent).toEqual([post.messages[1]]);
    expect(await readRow(post.rowIds[1]!)).toMatchObject({ status: "pending", error_message: null });
    expect((await readPost(post.postId))!.status).toBe("publishing");

    const listed = await call("GET", "/api/admin/dead-letters?state=replayed", { headers: admin });
    expect(listed.body.data.map((d: { id: string; replayed_at: string }) => [d.id, d.replayed_at])).toEqual([
      ["msg-0", expect.stringMatching(YMDHIS)],
    ]);

    // Replaying again sends nothing: the letter is marked replayed.
    const again = await call("POST", "/api/admin/dead-letters/replay", { body: { ids: ["msg-0"] }, headers: admin });
    expect(again.body).toEqual({ replayed: [], unreadable: [] });
    expect(sent).toHaveLength(1);

    await deliver(sent);
    expect(await readRow(post.rowIds[1]!)).toMatchObject({ status: "published", platform_post_id: expect.any(String) });
    expect((await readPost(post.postId))!.status).toBe("published");
    expect(points.at(-1)).toEqual({
      indexes: ["x"],
      blobs: ["x", "published", post.messages[1]!.workspace_id],
      doubles: [1],
    });
  });

  it("needs the admin token", async () => {
    for (const [method, path] of [
      ["GET", "/api/admin/dead-letters"],
      ["POST", "/api/admin/dead-letters/replay"],
    ] as const) {
      const res = await call(method, path, {
        body: method === "POST" ? {} : undefined,
        headers: { Authorization: "Bearer nope" },
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: "Unauthenticated." });
    }
  });
});
