import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import type { PublishResult } from "../../../src/platforms/types";
import {
  memoryCheckpoint,
  publishRequests,
  replyTo,
  storeTestMedia,
  testAccount,
  testAdapterContext,
} from "../../support/adapter-context";
import { failAfterHandling } from "../../support/fake-fetch";
import { platformRejection } from "../../support/fakes/fake-kit";
import { graphErrorResponse, metaThrottle } from "../../support/fakes/meta";
import { fakeThreads, type ThreadsFake } from "../../support/fakes/threads";

/** Issue 20: thread items and first comments as Threads replies (`reply_to_id` on the container). */

const adapter = adapterFor("threads")!;
const USER = "1234567890";

let fake: ThreadsFake;
beforeEach(() => {
  fake = fakeThreads();
});
afterEach(() => fake.uninstall());

const request = publishRequests("threads_post", () =>
  testAccount("threads", { platformUserId: USER, username: "tester" }),
);
const shortUrl = (id: string) => `https://www.threads.com/@tester/post/DA${id.slice(-6)}q`;

describe("Threads replies", () => {
  it("publishes a three-post thread: each reply's container names the post before, URLs recorded", async () => {
    const row = crypto.randomUUID();
    const ctx = testAdapterContext();
    const main = await adapter.publish(ctx, request("1/3 Launch", row));
    const t1 = await adapter.publish(ctx, request("2/3 Details", `${row}:t1`, replyTo(main)));
    const t2 = await adapter.publish(ctx, request("3/3 Thanks", `${row}:t2`, replyTo(main, t1)));
    expect([main, t1, t2]).toEqual(
      [main, t1, t2].map((r) => ({ platformPostId: r.platformPostId, platformUrl: shortUrl(r.platformPostId) })),
    );
    expect(fake.replyChain()).toEqual([
      { id: main.platformPostId, text: "1/3 Launch", repliedTo: null, root: main.platformPostId },
      { id: t1.platformPostId, text: "2/3 Details", repliedTo: main.platformPostId, root: main.platformPostId },
      { id: t2.platformPostId, text: "3/3 Thanks", repliedTo: t1.platformPostId, root: main.platformPostId },
    ]);
    const creates = fake.calls.filter((c) => c.method === "POST" && c.path === `/v1.0/${USER}/threads`);
    expect(creates.map((c) => c.body)).toEqual([
      { media_type: "TEXT", text: "1/3 Launch" },
      { media_type: "TEXT", text: "2/3 Details", reply_to_id: main.platformPostId },
      { media_type: "TEXT", text: "3/3 Thanks", reply_to_id: t1.platformPostId },
    ]);
  });

  it("a reply with a carousel puts reply_to_id on the carousel parent only", async () => {
    const row = crypto.randomUUID();
    const main = await adapter.publish(testAdapterContext(), request("main", row));
    const images = [await storeTestMedia("image"), await storeTestMedia("image")];
    const item = await adapter.publish(testAdapterContext(), request("pictures", `${row}:t1`, replyTo(main), images));
    const creates = fake.calls.filter((c) => c.method === "POST" && c.path === `/v1.0/${USER}/threads`).slice(1);
    expect(creates.map((c) => (c.body as Record<string, string>).reply_to_id ?? null)).toEqual([
      null,
      null,
      main.platformPostId,
    ]);
    expect(fake.replyChain().at(-1)).toEqual({
      id: item.platformPostId,
      text: "pictures",
      repliedTo: main.platformPostId,
      root: main.platformPostId,
    });
  });

  it("a reply whose publish answer was lost is found among the account's replies: no second reply", async () => {
    const row = crypto.randomUUID();
    const main = await adapter.publish(testAdapterContext(), request("main", row));
    const checkpoint = memoryCheckpoint();
    const comment = request("first comment", `${row}:c`, { ...replyTo(main), checkpoint });
    failAfterHandling("POST", `/v1.0/${USER}/threads_publish`, { kind: "timeout" });
    expect(await platformRejection(adapter.publish(testAdapterContext(), comment))).toMatchObject({
      kind: "transient",
    });
    expect(checkpoint.saves).toEqual([{ creation_id: expect.any(String), publish_sent_at: expect.any(Number) }]);
    const published = fake.replyChain()[1]!;
    expect(await adapter.publish(testAdapterContext(), comment)).toEqual({
      platformPostId: published.id,
      platformUrl: shortUrl(published.id),
    });
    expect(fake.replyChain()).toHaveLength(2);
    expect(fake.calls.filter((c) => c.path === `/v1.0/${USER}/threads_publish`)).toHaveLength(2);
    const lookup = fake.calls.find((c) => c.path === `/v1.0/${USER}/replies`)!;
    expect(lookup.query).toMatchObject({ fields: "id,text,timestamp,replied_to", limit: "5" });
  });

  it("without threads_read_replies, a published reply whose answer was lost is recorded at the profile", async () => {
    const row = crypto.randomUUID();
    const main = await adapter.publish(testAdapterContext(), request("main", row));
    const checkpoint = memoryCheckpoint();
    const item = request("second", `${row}:t1`, { ...replyTo(main), checkpoint });
    failAfterHandling("POST", `/v1.0/${USER}/threads_publish`, { kind: "timeout" });
    await platformRejection(adapter.publish(testAdapterContext(), item));
    fake.failNext({ path: `/v1.0/${USER}/replies` }, () =>
      graphErrorResponse(403, { message: "(#10) Application does not have permission for this action", code: 10 }),
    );
    const saved = checkpoint.saved as { creation_id: string };
    expect(await adapter.publish(testAdapterContext(), item)).toEqual({
      platformPostId: saved.creation_id,
      platformUrl: "https://www.threads.com/@tester",
    });
    expect(fake.replyChain()).toHaveLength(2);
  });

  it("a reply to a post that is gone is refused permanently at container creation", async () => {
    const gone: PublishResult = { platformPostId: "18049999999999999", platformUrl: null };
    const err = await platformRejection(
      adapter.publish(testAdapterContext(), request("orphan", "row:t1", replyTo(gone))),
    );
    expect(err).toMatchObject({ kind: "permanent", status: 400 });
    expect(err.message).toContain("The post you are replying to does not exist or was deleted.");
    expect(fake.replyChain()).toEqual([]);
  });

  it("classifies a throttled reply as transient and an expired token as auth", async () => {
    const row = crypto.randomUUID();
    const main = await adapter.publish(testAdapterContext(), request("main", row));
    const item = request("item", `${row}:t1`, replyTo(main));
    fake.failNext({ path: `/v1.0/${USER}/threads` }, () =>
      metaThrottle({ code: 80002, regainMinutes: 10, businessId: USER }),
    );
    expect(await platformRejection(adapter.publish(testAdapterContext(), item))).toMatchObject({
      kind: "transient",
      retryAfterSeconds: 600,
    });
    fake.expiredTokens.add("access-token");
    expect(await platformRejection(adapter.publish(testAdapterContext(), item))).toMatchObject({ kind: "auth" });
    expect(fake.replyChain()).toHaveLength(1);
  });
});
