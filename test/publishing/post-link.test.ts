import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import worker from "../../src/index";
import { postLink } from "../../src/publishing/post-link";
import { installFakesEachTest, seedXAccount } from "./platforms";
import { createTestWorkspace, readRow, seedPost } from "./support";

const fakes = installFakesEachTest();

describe("POST_LINK_ORIGINS (the local sandbox's post pages)", () => {
  it("parses from=to pairs and moves only links on a listed origin", () => {
    const config = loadConfig({
      POST_LINK_ORIGINS: " https://x.com=http://127.0.0.1:8801/ , https://bsky.app=http://127.0.0.1:8810,broken",
    });
    expect(config.POST_LINK_ORIGINS).toEqual([
      ["https://x.com", "http://127.0.0.1:8801"],
      ["https://bsky.app", "http://127.0.0.1:8810"],
    ]);
    expect(
      [
        "https://x.com/alice_x/status/1",
        "https://x.company/alice/status/1",
        "https://bsky.app/profile/alice.test/post/3k",
        "https://mastodon.social/@alice/1",
        null,
      ].map((u) => postLink(config, u)),
    ).toEqual([
      "http://127.0.0.1:8801/alice_x/status/1",
      "https://x.company/alice/status/1",
      "http://127.0.0.1:8810/profile/alice.test/post/3k",
      "https://mastodon.social/@alice/1",
      null,
    ]);
    expect(loadConfig({}).POST_LINK_ORIGINS).toEqual([]);
  });

  it("a published row stores its link on the listed origin; without the setting, the network's own", async () => {
    const ws = await createTestWorkspace();
    const accountId = await seedXAccount(ws);
    const rows = [{ accountId, platform: "x", contentType: "x_post" }];
    const moved = await seedPost(ws, { content: "Sandbox link", rows });
    const own = await seedPost(ws, { content: "Real link", rows });

    const deliver = async (messages: unknown[], extra: Record<string, string>) => {
      const batch = {
        queue: "publish-jobs",
        messages: messages.map((body, i) => ({
          id: `m${i}`,
          timestamp: new Date(),
          attempts: 1,
          body,
          ack() {},
          retry() {},
        })),
        metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } },
        ackAll() {},
        retryAll() {},
      } as unknown as MessageBatch<unknown>;
      const ctx = createExecutionContext();
      await worker.queue!(batch, { ...env, ...extra } as typeof env, ctx);
      await waitOnExecutionContext(ctx);
    };
    await deliver(moved.messages, { POST_LINK_ORIGINS: "https://x.com=http://127.0.0.1:8801" });
    await deliver(own.messages, {});

    const [movedTweet, ownTweet] = [...fakes.x.tweets.values()];
    expect(await readRow(moved.rowIds[0]!)).toMatchObject({
      status: "published",
      platform_url: `http://127.0.0.1:8801/alice_x/status/${movedTweet!.id}`,
    });
    expect(await readRow(own.rowIds[0]!)).toMatchObject({
      status: "published",
      platform_url: `https://x.com/alice_x/status/${ownTweet!.id}`,
    });
  });
});
