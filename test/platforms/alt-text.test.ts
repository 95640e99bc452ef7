import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { adapterFor } from "../../src/platforms";
import type { AdapterMedia, PublishRequest } from "../../src/platforms/types";
import { type Fakes, installFakes } from "../publishing/platforms";
import { blueskyAccount, storeTestMedia, testAccount, testAdapterContext } from "../support/adapter-context";
import { fakeLinkedIn } from "../support/fakes/linkedin";
import { MASTODON } from "../support/fakes/mastodon";
import { fakeFacebookGraph, MetaGraphFake } from "../support/fakes/meta";
import { fakePinterest } from "../support/fakes/pinterest";
import { fakeThreads } from "../support/fakes/threads";

/**
 * Issue 29: a media item's alt text reaches every network that takes one, in the network's own field — each fake
 * records it where the real API keeps it (and refuses it past the network's limit).
 */

const ALT = "A golden retriever catching a red frisbee on a beach at sunset.";

const image = async (alt: string | null = ALT): Promise<AdapterMedia> => ({
  ...(await storeTestMedia("image")),
  width: 1200,
  height: 800,
  alt,
});

const request = (platform: string, contentType: string, media: AdapterMedia[], extra: Partial<PublishRequest> = {}) =>
  ({
    postPlatformId: crypto.randomUUID(),
    contentType,
    content: "With a picture",
    media,
    meta: {},
    account: testAccount(platform as never),
    ...extra,
  }) as PublishRequest;

describe("alt text on X, Bluesky and Mastodon", () => {
  let fakes: Fakes;
  beforeEach(() => {
    fakes = installFakes();
  });
  afterEach(() => fakes.uninstall());

  it("X: POST /2/media/metadata sets the image's alt_text before the post names it; none without alt", async () => {
    const account = testAccount("x", { username: "alice_x", credentials: { access_token: "x-access" } });
    await adapterFor("x")!.publish(
      testAdapterContext(),
      request("x", "x_post", [await image(), await image(null)], { account }),
    );
    const [tweet] = [...fakes.x.tweets.values()];
    expect(tweet!.media_ids.map((id) => fakes.x.media.get(id)!.altText)).toEqual([ALT, undefined]);
    expect(fakes.x.count("POST /2/media/metadata")).toBe(1);
  });

  it('Bluesky: each image\'s `alt` in the images embed ("" without one)', async () => {
    const account = blueskyAccount(fakes.bluesky);
    await adapterFor("bluesky")!.publish(
      testAdapterContext(),
      request("bluesky", "bluesky_post", [await image(), await image(null)], { account }),
    );
    const [record] = [...fakes.bluesky.records.values()];
    expect((record!.value.embed as { images: { alt: string }[] }).images.map((i) => i.alt)).toEqual([ALT, ""]);
  });

  it("Mastodon: the attachment's `description`", async () => {
    const account = testAccount("mastodon", {
      username: "alice",
      meta: { instance: MASTODON },
      credentials: { access_token: "masto-token" },
    });
    await adapterFor("mastodon")!.publish(
      testAdapterContext(),
      request("mastodon", "mastodon_post", [await image(), await image(null)], { account }),
    );
    expect([...fakes.mastodon.media.values()].map((m) => m.description)).toEqual([ALT, null]);
  });
});

describe("alt text on LinkedIn, Pinterest and Threads", () => {
  it("LinkedIn: `altText` of each image in content.multiImage", async () => {
    const fake = fakeLinkedIn();
    try {
      await adapterFor("linkedin")!.publish(
        testAdapterContext(),
        request("linkedin", "linkedin_post", [await image(), await image(null)], {
          account: testAccount("linkedin", { platformUserId: "abc123" }),
        }),
      );
      const images = (fake.posts[0]!.body.content as { multiImage: { images: { altText?: string }[] } }).multiImage
        .images;
      expect(images.map((i) => i.altText)).toEqual([ALT, undefined]);
    } finally {
      fake.uninstall();
    }
  });

  it("Pinterest: the image's alt text as `alt_text` when the row's meta sets none", async () => {
    const fake = fakePinterest();
    try {
      await adapterFor("pinterest")!.publish(
        testAdapterContext(),
        request("pinterest", "pinterest_pin", [await image()], { meta: { board_id: "549755885175" } }),
      );
      expect([...fake.pins.values()].map((p) => p.alt_text)).toEqual([ALT]);
    } finally {
      fake.stop();
    }
  });

  it("Threads: `alt_text` on the image container", async () => {
    const fake = fakeThreads();
    try {
      await adapterFor("threads")!.publish(
        testAdapterContext(),
        request("threads", "threads_post", [await image()], {
          account: testAccount("threads", { platformUserId: "1234567890", username: "tester" }),
        }),
      );
      const container = fake.calls.find((c) => c.method === "POST" && c.path.endsWith("/threads"));
      expect(container?.body).toMatchObject({ media_type: "IMAGE", alt_text: ALT });
    } finally {
      fake.uninstall();
    }
  });
});

describe("alt text on Facebook and Instagram", () => {
  it("Facebook: `alt_text_custom` on each page photo", async () => {
    const fake = fakeFacebookGraph();
    try {
      await adapterFor("facebook")!.publish(
        testAdapterContext(),
        request("facebook", "facebook_post", [await image(), await image(null)], {
          account: testAccount("facebook", { platformUserId: "1234567890" }),
        }),
      );
      const photos = fake.calls.filter((c) => c.method === "POST" && c.path.endsWith("/photos"));
      expect(photos.map((c) => (c.body as Record<string, unknown>).alt_text_custom)).toEqual([ALT, undefined]);
    } finally {
      fake.uninstall();
    }
  });

  it("Instagram: `alt_text` on image containers (carousel items too), none on a reel", async () => {
    const fake = new MetaGraphFake("https://instagram.fake");
    try {
      const account = testAccount("instagram", { platformUserId: "17841400000000001" });
      await adapterFor("instagram")!.publish(
        testAdapterContext(),
        request("instagram", "instagram_carousel", [await image(), await image(null)], { account }),
      );
      const containers = fake.calls.filter((c) => c.method === "POST" && c.path.endsWith("/media"));
      expect(containers.map((c) => (c.body as Record<string, unknown>).alt_text)).toEqual([ALT, undefined, undefined]);
    } finally {
      fake.uninstall();
    }
  });
});
