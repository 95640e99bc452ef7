import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeThreads, type ThreadsFake } from "../support/fakes/threads";
import { createTestWorkspace, deliver, readRow, seedAccount, seedPost } from "./support";

/** Threads' 250 posts per 24 hours, read before publishing (docs/publishing.md "Threads' publishing quota"). */
let threads: ThreadsFake;
beforeEach(() => {
  threads = fakeThreads();
});
afterEach(() => threads.uninstall());

const OVER =
  "Threads' publishing limit is reached: 250 of 250 posts in the last 24 hours (a moving window). Nothing was sent; the post goes out once the window has room.";

async function threadsRow() {
  const ws = await createTestWorkspace();
  const accountId = await seedAccount(ws, {
    platform: "threads",
    platformUserId: "7000001",
    credentials: { access_token: "access-token" },
  });
  return seedPost(ws, {
    content: "Over the quota",
    rows: [{ accountId, platform: "threads", contentType: "threads_post" }],
  });
}

describe("Threads publishing quota through the queue", () => {
  it("over the quota the row waits 30 minutes with the reason, then publishes once the window has room", async () => {
    threads.priorPosts = 250;
    const post = await threadsRow();
    const first = await deliver(post.messages, { attempts: 1 });
    expect(first.retryMessages).toEqual([{ msgId: "msg-0", delaySeconds: 1800 }]);
    expect(await readRow(post.rowIds[0]!)).toMatchObject({ status: "publishing", error_message: OVER });
    expect(threads.published).toEqual([]);

    threads.priorPosts = 249;
    const second = await deliver(post.messages, { attempts: 2 });
    expect(second.explicitAcks).toEqual(["msg-0"]);
    expect(await readRow(post.rowIds[0]!)).toMatchObject({ status: "published", error_message: null });
    expect(threads.published).toHaveLength(1);
  });

  it("still over the quota on the last attempt, the row fails with the reason and nothing is posted", async () => {
    threads.priorPosts = 250;
    const post = await threadsRow();
    await deliver(post.messages, { attempts: 6 });
    expect(await readRow(post.rowIds[0]!)).toMatchObject({ status: "failed", error_message: OVER });
    expect(threads.summary().filter((c) => c.startsWith("POST"))).toEqual([]);
  });
});
