import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { checkMediaRules } from "../../src/catalog/media-rules";
import { loadConfig } from "../../src/config";
import { readDimensions } from "../../src/media/sniff";
import { encodeRows, type RowSource } from "../../src/media/transcode";
import { adapterFor } from "../../src/platforms";
import type { AdapterMedia } from "../../src/platforms/types";
import { fitMediaForRow } from "../../src/publishing/fit-media";
import { publishRequests, storeTestMedia, testAccount, testAdapterContext } from "../support/adapter-context";
import { platformRejection } from "../support/fakes/fake-kit";
import { fakeLinkedIn, LINKEDIN_MAX_IMAGE_PIXELS, type LinkedInFake } from "../support/fakes/linkedin";

/**
 * LinkedIn's Images API takes images of fewer than 36,152,320 pixels; its fake fails the processing of a larger
 * upload, and a post naming that image is refused. A JPEG upload is not pixel-capped at ingest (JPEGs are decoded
 * at a reduced DCT scale), so such a photo can be stored; publishing fits it under LinkedIn's limit, and the fake
 * takes the variant.
 */
const [W, H] = [6100, 6000]; // 36,600,000 pixels

/** A smooth gradient, generated row by row (never the whole image in memory), encoded at quality 85. */
function gradientJpeg(width: number, height: number): Promise<Uint8Array> {
  let y = 0;
  const source: RowSource = {
    width,
    height,
    async readRows(rows, out) {
      for (let r = 0; r < rows; r++, y++)
        for (let x = 0, o = r * width * 3; x < width; x++, o += 3) {
          out[o] = (x * 255) / width;
          out[o + 1] = (y * 255) / height;
          out[o + 2] = 128;
        }
    },
  };
  return encodeRows(source, 85);
}

let fake: LinkedInFake;
beforeEach(() => {
  fake = fakeLinkedIn();
});
afterEach(() => fake.uninstall());

describe("LinkedIn image pixel limit (issue 16)", () => {
  it("the fake refuses a 36.6 MP photo; publishing sends a fitted variant below the limit, which it takes", async () => {
    const photo = await gradientJpeg(W, H);
    expect(readDimensions("image/jpeg", photo)).toEqual({ width: W, height: H });
    expect(W * H).toBeGreaterThanOrEqual(LINKEDIN_MAX_IMAGE_PIXELS);
    const original = { ...(await storeTestMedia("image", photo)), width: W, height: H };
    const adapter = adapterFor("linkedin")!;
    const post = publishRequests("linkedin_post", () => testAccount("linkedin", { platformUserId: "abc123" }));
    const request = (media: AdapterMedia[]) => post("Panorama", crypto.randomUUID(), {}, media);

    const imageUrn = "urn:li:image:D4E10AQ7400000000000000001";
    expect(await platformRejection(adapter.publish(testAdapterContext(), request([original])))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: `Media ${imageUrn} failed processing and cannot be used.`,
      retryAfterSeconds: undefined,
      status: 400,
    });
    expect(fake.posts).toEqual([]);

    // Not refused at schedule time: an image over a pixel limit is fitted, not refused.
    expect(checkMediaRules("LinkedIn: Post", "linkedin_post", 1, [original])).toEqual([]);
    const ctx = { env, config: loadConfig(env), origin: "https://api.test" };
    const [sent] = await fitMediaForRow(ctx, "linkedin", "linkedin_post", [original]);
    expect(sent!.url).toMatch(/^https:\/\/media\.test\/variants\//);
    const stored = new Uint8Array(await (await env.MEDIA_BUCKET.get(sent!.path))!.arrayBuffer());
    const fitted = readDimensions("image/jpeg", stored)!;
    expect(fitted.width * fitted.height).toBeLessThan(LINKEDIN_MAX_IMAGE_PIXELS);
    expect(fitted.width / fitted.height).toBeCloseTo(W / H, 2);

    const published = await adapter.publish(testAdapterContext(), request([sent!]));
    expect(published).toEqual({ platformPostId: expect.any(String), platformUrl: expect.stringMatching(/^https:/) });
    expect(fake.posts).toHaveLength(1);
  }, 180_000);
});
