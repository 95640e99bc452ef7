import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import { packedRows } from "../../src/media/resample";
import { encodeRows } from "../../src/media/transcode";
import { adapterFor } from "../../src/platforms";
import type { AdapterMedia } from "../../src/platforms/types";
import { fitMediaForRow } from "../../src/publishing/fit-media";
import { publishRequests, storeTestMedia, testAccount, testAdapterContext } from "../support/adapter-context";
import { MetaGraphFake } from "../support/fakes/meta";
import { PULL_LIMITS, pulledImageRefusal } from "../support/fakes/pulled-media";

/**
 * Issue 16: the networks that pull images by URL download and check them in their fakes (format, bytes, pixels,
 * aspect: test/support/fakes/pulled-media.ts). A photo over their limits is refused there as the network refuses
 * it, and what publishing hands their adapters (fitMediaForRow, the code the publish job runs) is a variant they
 * take.
 */
const MB = 1024 * 1024;

/** 3000 × 2400 (5:4) of noise at quality 100: ≈ 10 MB, past Instagram's and Threads' 8 MB and Facebook's 4 MB. */
let made: Promise<Uint8Array> | undefined;
function noisyPhoto(): Promise<Uint8Array> {
  made ??= (async () => {
    const [w, h] = [3000, 2400];
    const px = new Uint8Array(w * h * 3);
    let seed = 12345;
    for (let i = 0; i < px.length; i++) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      px[i] = seed >> 23;
    }
    return encodeRows(packedRows(px, w, h, 3), 100);
  })();
  return made;
}

const cases = [
  { platform: "instagram", contentType: "instagram_feed", limits: PULL_LIMITS.instagram },
  { platform: "threads", contentType: "threads_post", limits: PULL_LIMITS.threads },
  { platform: "facebook", contentType: "facebook_post", limits: PULL_LIMITS.facebook },
  { platform: "tiktok", contentType: "tiktok_photo", limits: PULL_LIMITS.tiktok },
  { platform: "pinterest", contentType: "pinterest_pin", limits: PULL_LIMITS.pinterest },
] as const;

let fake: MetaGraphFake | undefined;
afterEach(() => fake?.uninstall());

describe("URL-pull networks check what they download (issue 16)", () => {
  it.each(cases)(
    "$platform refuses the original past its limits and takes the fitted variant",
    async (c) => {
      const photo = await noisyPhoto();
      expect(photo.length).toBeGreaterThan(8 * MB);
      const original = { ...(await storeTestMedia("image", photo)), width: 3000, height: 2400 };
      const ctx = { env, config: loadConfig(env), origin: "https://api.test" };
      const [sent] = await fitMediaForRow(ctx, c.platform, c.contentType, [original]);
      if (c.platform === "pinterest") {
        // 20 MB: no stored image (10 MB upload cap) is ever past it; the original goes as it is, and is taken.
        expect(sent).toEqual(original);
        expect(await pulledImageRefusal(original.url, c.limits)).toBeNull();
        return;
      }
      expect(await pulledImageRefusal(original.url, c.limits)).toBe(c.platform === "tiktok" ? "dimensions" : "size");
      expect(sent!.url).toMatch(/^https:\/\/media\.test\/variants\/[0-9a-f-]{36}\/[0-9a-f]{16}\.jpg$/);
      expect(await pulledImageRefusal(sent!.url, c.limits)).toBeNull();
      const stored = await env.MEDIA_BUCKET.head(sent!.path);
      expect(stored!.size).toBe(sent!.size);
      expect(sent!.size).toBeLessThanOrEqual(c.limits.maxBytes);
    },
    120_000,
  );

  it("Instagram's fake answers the network's error for the original and publishes the variant", async () => {
    fake = new MetaGraphFake("https://instagram.fake");
    const photo = await noisyPhoto();
    const original = { ...(await storeTestMedia("image", photo)), width: 3000, height: 2400 };
    const adapter = adapterFor("instagram")!;
    const post = publishRequests("instagram_feed", () =>
      testAccount("instagram", { platformUserId: "17841400000000001" }),
    );
    const request = (media: AdapterMedia[]) => post("Noise", crypto.randomUUID(), {}, media);
    const refused = await adapter.publish(testAdapterContext(), request([original])).catch((e) => e);
    expect(refused).toMatchObject({ name: "PlatformError", kind: "permanent" });
    expect(String(refused.message)).toMatch(/image (size )?is too large/i);
    expect(fake.published).toHaveLength(0);
    const ctx = { env, config: loadConfig(env), origin: "https://api.test" };
    const fitted = await fitMediaForRow(ctx, "instagram", "instagram_feed", [original]);
    const published = await adapter.publish(testAdapterContext(), request(fitted));
    expect(published).toEqual({ platformPostId: expect.any(String), platformUrl: expect.stringMatching(/^https:/) });
    expect(fake.published).toHaveLength(1);
    const creates = fake.calls.filter((c) => c.method === "POST" && c.path.endsWith("/media"));
    expect(creates.map((c) => (c.body as Record<string, string>).image_url)).toEqual([original.url, fitted[0]!.url]);
  }, 120_000);
});
