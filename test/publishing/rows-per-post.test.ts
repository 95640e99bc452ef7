// fresh storage: runs the Worker's cron, which works on every workspace's rows at once.
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BSKY_PDS, BSKY_VIDEO } from "../support/fakes/bluesky";
import { MASTODON } from "../support/fakes/mastodon";
import type { TestWorkspace } from "../support/harness";
import { meteredD1, type RowMeter } from "../support/metered-d1";
import { type Fakes, installFakes } from "./platforms";
import { connectThroughApi, createTestWorkspace, deliver, readPost, recordingQueue, tick } from "./support";

/**
 * Issue 28, capacity on paper (docs/scale.md): the D1 rows a published post costs — read and written, as D1 reports
 * and bills them — from the cron tick that claims it to the queue consumer that publishes its rows, on a post with
 * three networks (X, Bluesky, Mastodon) and no webhook endpoint. A tick also does work that does not depend on how
 * many posts are due (the sweeps, token refresh, health), so the per-post cost is the difference between a tick with
 * 6 due posts and one with 1, divided by 5. The numbers are printed and written to docs/scale.md by hand; the bounds
 * below fail if a change makes publishing cost grow.
 */
let fakes: Fakes;
beforeEach(() => {
  fakes = installFakes();
});
afterEach(() => fakes.uninstall());

async function duePosts(ws: TestWorkspace, n: number, targets: { social_account_id: string; content_type: string }[]) {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const created = await ws.api("POST", "/api/posts", { content: `Post ${i} of ${n}`, platforms: targets });
    expect(created.status, created.text).toBe(201);
    const scheduled = await ws.api("PUT", `/api/posts/${created.body.id}`, {
      status: "scheduled",
      scheduled_at: new Date(Date.now() + 120_000).toISOString(),
    });
    expect(scheduled.status, scheduled.text).toBe(200);
    ids.push(created.body.id);
  }
  await env.DB.prepare("UPDATE posts SET scheduled_at = ? WHERE id IN (SELECT value FROM json_each(?))")
    .bind(Date.now() - 1000, JSON.stringify(ids))
    .run();
  return ids;
}

/** Claims and publishes every due post through a metered D1 binding; the rows it took. */
async function publishMetered(ids: string[]) {
  const meter: RowMeter = { read: 0, written: 0 };
  const metered = { ...env, DB: meteredD1(env.DB, meter) } as Cloudflare.Env;
  const messages = await tick(recordingQueue(), undefined, metered);
  expect(messages).toHaveLength(ids.length * 3);
  const result = await deliver(messages, { env: metered });
  expect(result.retryMessages).toEqual([]);
  for (const id of ids) expect((await readPost(id))!.status).toBe("published");
  return meter;
}

describe("D1 rows per published post", () => {
  it("claim and publish of a post on three networks: a fixed cost per tick plus a fixed cost per post", async () => {
    const ws = await createTestWorkspace();
    const targets = [
      {
        social_account_id: await connectThroughApi(ws, {
          platform: "x",
          display_name: "X",
          username: "x",
          platform_user_id: "1234567890",
          credentials: { access_token: "x-access" },
        }),
        content_type: "x_post",
      },
      {
        social_account_id: await connectThroughApi(ws, {
          platform: "bluesky",
          display_name: "Bluesky",
          username: "",
          credentials: { identifier: fakes.bluesky.identifier, app_password: fakes.bluesky.password },
          meta: { service: BSKY_PDS, video_service: BSKY_VIDEO },
        }),
        content_type: "bluesky_post",
      },
      {
        social_account_id: await connectThroughApi(ws, {
          platform: "mastodon",
          display_name: "Mastodon",
          username: "m",
          credentials: { access_token: "masto-token" },
          meta: { instance: MASTODON },
        }),
        content_type: "mastodon_post",
      },
    ];
    const one = await publishMetered(await duePosts(ws, 1, targets));
    const six = await publishMetered(await duePosts(ws, 6, targets));
    const perPost = { read: (six.read - one.read) / 5, written: (six.written - one.written) / 5 };
    const perTick = { read: one.read - perPost.read, written: one.written - perPost.written };
    console.log(
      `D1 rows per published post (3 networks): ${JSON.stringify(perPost)}; per tick: ${JSON.stringify(perTick)}`,
    );
    // docs/scale.md records the numbers; these bounds catch a change that makes them grow.
    expect(perPost.written).toBeGreaterThan(0);
    expect(perPost.written).toBeLessThan(80);
    expect(perPost.read).toBeLessThan(200);
  });
});
