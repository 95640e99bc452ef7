import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../src/config";
import { adapterFor } from "../../../src/platforms";
import { testAccount, testAdapterContext } from "../../support/adapter-context";
import { MetaGraphFake } from "../../support/fakes/meta";

/** One setting per versioned Meta API (docs/configuration.md "API versions"): no version is written in code. */
const PAGE = "1234567890";
let facebook: MetaGraphFake;
let instagram: MetaGraphFake;
beforeEach(() => {
  facebook = new MetaGraphFake("https://facebook.fake");
  instagram = new MetaGraphFake("https://instagram.fake");
});
afterEach(() => {
  facebook.uninstall();
  instagram.uninstall();
});

const moved = () => {
  const ctx = testAdapterContext();
  return testAdapterContext({ config: { ...ctx.config, META_GRAPH_API_VERSION: "v25.0" } });
};

describe("META_GRAPH_API_VERSION", () => {
  it("defaults to v26.0 (the newest, released 29 July 2026) and Threads to v1.0; a malformed value stops the Worker", () => {
    expect(loadConfig({})).toMatchObject({ META_GRAPH_API_VERSION: "v26.0", THREADS_API_VERSION: "v1.0" });
    expect(loadConfig({ META_GRAPH_API_VERSION: "", THREADS_API_VERSION: " " })).toMatchObject({
      META_GRAPH_API_VERSION: "v26.0",
      THREADS_API_VERSION: "v1.0",
    });
    expect(loadConfig({ META_GRAPH_API_VERSION: "v25.0" }).META_GRAPH_API_VERSION).toBe("v25.0");
    expect(() => loadConfig({ META_GRAPH_API_VERSION: "25" })).toThrow("Invalid configuration: META_GRAPH_API_VERSION");
    expect(() => loadConfig({ THREADS_API_VERSION: "1.0" })).toThrow("Invalid configuration: THREADS_API_VERSION");
  });

  it("is the version of every Facebook Page, Instagram (both logins) and Facebook Login call", async () => {
    const ctx = moved();
    const page = testAccount("facebook", { platformUserId: PAGE });
    await adapterFor("facebook")!.publish(ctx, {
      postPlatformId: crypto.randomUUID(),
      contentType: "facebook_post",
      content: "Opening hours changed",
      media: [],
      meta: {},
      account: page,
    });
    await adapterFor("facebook")!.refresh!(ctx, page);
    await adapterFor("instagram-facebook")!.refresh!(ctx, testAccount("instagram-facebook"));
    instagram.setInsights("17920000999", { reach: 1, likes: 1, comments: 1, shares: 1, saved: 1, views: 1 }, "FEED");
    await adapterFor("instagram")!.metrics!(ctx, {
      platformPostId: "17920000999",
      platformUrl: null,
      contentType: "instagram_post",
      account: testAccount("instagram"),
    });
    expect([...facebook.summary(), ...instagram.summary()]).toEqual([
      `POST /v25.0/${PAGE}/feed`,
      "GET /v25.0/me",
      "GET /v25.0/me",
      "GET /v25.0/17920000999/insights",
    ]);
  });
});
