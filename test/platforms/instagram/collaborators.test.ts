import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../../src/platforms";
import type { AdapterMedia, PublishRequest } from "../../../src/platforms/types";
import { storeTestMedia, testAccount, testAdapterContext } from "../../support/adapter-context";
import { MetaGraphFake } from "../../support/fakes/meta";

/** Issue 20: row `meta.collaborators` reaches Instagram as the container's `collaborators` list. */
describe("instagram collaborators", () => {
  const adapter = adapterFor("instagram")!;
  let fake: MetaGraphFake;
  beforeEach(() => {
    fake = new MetaGraphFake("https://instagram.fake");
    fake.videoPolls = 0;
  });
  afterEach(() => fake.uninstall());

  const request = (contentType: string, media: AdapterMedia[], meta: Record<string, unknown>): PublishRequest => ({
    postPlatformId: crypto.randomUUID(),
    contentType,
    content: "With friends",
    media,
    meta,
    account: testAccount("instagram", { platformUserId: "17841400000000001" }),
  });
  const containerBodies = () =>
    fake.calls.filter((c) => c.method === "POST" && c.path.endsWith("/media")).map((c) => c.body);

  it("sends them on a feed image and on a carousel's parent, never on its items or on a story", async () => {
    const image = await storeTestMedia("image");
    const video = await storeTestMedia("video");
    const collaborators = ["@alice", "bob", " "];
    await adapter.publish(testAdapterContext(), request("instagram_feed", [image], { collaborators }));
    await adapter.publish(testAdapterContext(), request("instagram_carousel", [image, video], { collaborators }));
    await adapter.publish(testAdapterContext(), request("instagram_story", [image], { collaborators }));
    await adapter.publish(testAdapterContext(), request("instagram_reel", [video], {}));
    expect(containerBodies()).toEqual([
      { image_url: image.url, caption: "With friends", collaborators: '["alice","bob"]' },
      { image_url: image.url, is_carousel_item: "true" },
      { media_type: "VIDEO", video_url: video.url, is_carousel_item: "true" },
      {
        media_type: "CAROUSEL",
        children: expect.stringMatching(/^\d+,\d+$/),
        caption: "With friends",
        collaborators: '["alice","bob"]',
      },
      { media_type: "STORIES", image_url: image.url },
      { media_type: "REELS", video_url: video.url, caption: "With friends", share_to_feed: "true" },
    ]);
  });
});
