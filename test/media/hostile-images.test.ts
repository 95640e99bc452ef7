import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { bytesSource } from "../../src/media/byte-source";
import { type IngestLimits, ingestMedia, MediaRejectedError } from "../../src/media/ingest";
import { readDimensions } from "../../src/media/sniff";
import { fakeOrigin } from "../support/fake-fetch";
import { call, createTestWorkspace } from "../support/harness";
import { bucketKeys, chunk, insertPost, makeRawPng, mediaForm, mediaRows, pngFile } from "./fixtures";

/**
 * Hostile images (issue 21): each one answers 422 with the documented message, or is stored as a JPEG whose frame
 * header (SOF) has the source's real dimensions. All files are built here, small (a few KB to a few MB of pixels
 * that compress to almost nothing). The heap each one costs is measured by `npm run bench -- hostile`.
 */

const limits: IngestLimits = {
  imageMaxBytes: 10 * 1024 * 1024,
  videoMaxBytes: 64 * 1024 * 1024,
  maxPixels: 16_000_000,
  maxFullDecodePixels: 4_000_000,
  accept: new Set(["image", "video"]),
};

const ingest = (bytes: Uint8Array) =>
  ingestMedia(env.MEDIA_BUCKET, bytesSource(bytes), { filename: "hostile.png", limits });

async function refusal(bytes: Uint8Array) {
  const err = await ingest(bytes).then(
    () => null,
    (e) => e,
  );
  expect(err).toBeInstanceOf(MediaRejectedError);
  return { reason: (err as MediaRejectedError).reason, message: (err as MediaRejectedError).message };
}

/** Stores `bytes`, then reads the stored JPEG back: its SOF dimensions, restart markers and end marker. */
async function stored(bytes: Uint8Array) {
  const out = await ingest(bytes);
  const jpeg = new Uint8Array(await (await env.MEDIA_BUCKET.get(out.path))!.arrayBuffer());
  expect([jpeg[0], jpeg[1], jpeg[jpeg.length - 2], jpeg[jpeg.length - 1]]).toEqual([0xff, 0xd8, 0xff, 0xd9]);
  return { result: out, jpeg, sof: readDimensions("image/jpeg", jpeg) };
}

/** A grey PNG (8-bit, or 1-bit to keep huge sizes cheap to build). */
const grey = (width: number, height: number, opts: { bitDepth?: 1 | 8; interlace?: boolean } = {}) => {
  const bitDepth = opts.bitDepth ?? 8;
  const stride = Math.ceil((width * bitDepth) / 8);
  return makeRawPng({
    width,
    height,
    colorType: 0,
    bitDepth,
    interlace: opts.interlace,
    line: (y) => new Uint8Array(stride).fill((y * 37) & 255),
  });
};

const TOO_WIDE = {
  reason: "too_wide",
  message: "The media field has invalid image dimensions: at most 65500 pixels per side are supported.",
};
const INVALID = { reason: "invalid_image", message: "The media field must be a valid image." };

/** A PNG from a hand-made IHDR (any width, height, depth, colour type, interlace) and the given IDAT bytes. */
function pngWithHeader(w: number, h: number, depth: number, colorType: number, interlace: number, idat: Uint8Array) {
  const ihdr = new Uint8Array(13);
  new DataView(ihdr.buffer).setUint32(0, w);
  new DataView(ihdr.buffer).setUint32(4, h);
  ihdr.set([depth, colorType, 0, 0, interlace], 8);
  return pngFile([chunk("IHDR", ihdr), chunk("IDAT", idat)]);
}

/** A WebP: RIFF + VP8X canvas (w × h) + the given chunks. */
function webpVp8x(w: number, h: number, chunks: Uint8Array[] = []): Uint8Array {
  const vp8x = new Uint8Array(18);
  vp8x.set(new TextEncoder().encode("VP8X"), 0);
  new DataView(vp8x.buffer).setUint32(4, 10, true);
  vp8x.set(
    [(w - 1) & 255, ((w - 1) >> 8) & 255, (w - 1) >> 16, (h - 1) & 255, ((h - 1) >> 8) & 255, (h - 1) >> 16],
    12,
  );
  const body = [vp8x, ...chunks];
  const size = 4 + body.reduce((n, c) => n + c.length, 0);
  const out = new Uint8Array(8 + size);
  out.set(new TextEncoder().encode("RIFF"), 0);
  new DataView(out.buffer).setUint32(4, size, true);
  out.set(new TextEncoder().encode("WEBP"), 8);
  let at = 12;
  for (const c of body) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** A VP8L chunk header announcing w × h (14 bits each), followed by junk. */
function vp8l(w: number, h: number): Uint8Array {
  const c = new Uint8Array(8 + 16);
  c.set(new TextEncoder().encode("VP8L"), 0);
  new DataView(c.buffer).setUint32(4, 16, true);
  c[8] = 0x2f;
  const bits = (w - 1) | ((h - 1) << 14);
  new DataView(c.buffer).setUint32(9, bits >>> 0, true);
  return c;
}

describe("hostile images (ingest)", () => {
  it("refuses every size a JPEG cannot hold, from the header, before any decode", async () => {
    const before = await bucketKeys();
    // 65,536 × 244 (16 MP, under the pixel limit): libjpeg refuses the width; the old code then decoded it whole.
    expect(await refusal(await grey(65_536, 244, { bitDepth: 1 }))).toEqual(TOO_WIDE);
    // 100 × 70,000: the old code stored a JPEG whose 16-bit height field said 4,464.
    expect(await refusal(await grey(100, 70_000, { bitDepth: 1 }))).toEqual(TOO_WIDE);
    expect(await refusal(await grey(65_501, 1, { bitDepth: 1 }))).toEqual(TOO_WIDE);
    expect(await refusal(await grey(1, 65_501, { bitDepth: 1 }))).toEqual(TOO_WIDE);
    // Header-only giants: 2^32−1 per side, and a WebP canvas of 2^24 per side.
    expect(await refusal(pngWithHeader(0xffffffff, 0xffffffff, 8, 2, 0, new Uint8Array(8)))).toEqual(TOO_WIDE);
    expect(await refusal(webpVp8x(1 << 24, 1 << 24))).toEqual(TOO_WIDE);
    expect(await bucketKeys()).toEqual(before);
  });

  it("stores the largest sizes a JPEG holds with their real dimensions (widest, tallest, most pixels: a 16 MP bomb)", async () => {
    const wide = await stored(await grey(65_500, 16));
    expect(wide.sof).toEqual({ width: 65_500, height: 16 });
    expect(wide.result).toMatchObject({ width: 65_500, height: 16, mimeType: "image/jpeg" });

    const tall = await stored(await grey(16, 65_500));
    expect(tall.sof).toEqual({ width: 16, height: 65_500 });
    expect(tall.result).toMatchObject({ width: 16, height: 65_500 });

    // 70,000 rows used to be stored as 4,464; 65,500 rows in 1-pixel columns must keep every row.
    const thin = await stored(await grey(1, 65_500, { bitDepth: 1 }));
    expect(thin.sof).toEqual({ width: 1, height: 65_500 });

    // Exactly MEDIA_MAX_IMAGE_PIXELS (16 MP) of RGB zeros (48 MiB inflated, the volume limit), a decompression
    // bomb of < 100 KB: streamed, stored. The same size in RGBA (64 MiB) is refused from the header.
    const bomb = (colorType: 2 | 6, bytesPerPixel: number) =>
      makeRawPng({
        width: 4000,
        height: 4000,
        colorType,
        bitDepth: 8,
        line: () => new Uint8Array(4000 * bytesPerPixel),
      });
    const rgb = await bomb(2, 3);
    expect(rgb.length).toBeLessThan(100_000);
    expect((await stored(rgb)).sof).toEqual({ width: 4000, height: 4000 });
    expect(await refusal(await bomb(6, 4))).toEqual({
      reason: "too_many_pixels",
      message: "The media field has invalid image dimensions: at most 12582912 pixels are supported.",
    });
    // One row more is refused from the header.
    expect(await refusal(await grey(4000, 4001, { bitDepth: 1 }))).toEqual({
      reason: "too_many_pixels",
      message: "The media field has invalid image dimensions: at most 16000000 pixels are supported.",
    });
  }, 120_000); // seconds of encoding on a loaded CI machine

  it("lowers the pixel limit by how much a PNG inflates: 16-bit and interlaced (one inflate pass per band)", async () => {
    const limited = (n: number) => ({
      reason: "too_many_pixels",
      message: `The media field has invalid image dimensions: at most ${n} pixels are supported.`,
    });
    const idat = new Uint8Array(8);
    // RGBA 16-bit: 8 bytes a pixel, 48 MiB / 8 = 6,291,456 pixels; RGBA 8-bit: 48 MiB / 4 = 12,582,912.
    expect(await refusal(pngWithHeader(3000, 3000, 16, 6, 0, idat))).toEqual(limited(6_291_456));
    expect(await refusal(pngWithHeader(3548, 3547, 8, 6, 0, idat))).toEqual(limited(12_582_912));
    // Interlaced RGBA 16-bit: three passes, 48 MiB / 8 / 3 = 2,097,152 pixels.
    expect(await refusal(pngWithHeader(2000, 1500, 16, 6, 1, idat))).toEqual(limited(2_097_152));
    // Interlaced grey: the whole-decode limit (4 MP in these tests) is the lower one.
    expect(await refusal(pngWithHeader(2001, 2000, 8, 0, 1, idat))).toEqual(limited(4_000_000));
  });

  it("stores interlaced PNGs (assembled in bands) exactly as their non-interlaced twins", async () => {
    // 2000 × 1500 × 3 bytes = 9 MB of RGB: two bands of at most 8 MiB, so two passes over the stream.
    const plain = await stored(await grey(2000, 1500));
    const interlaced = await stored(await grey(2000, 1500, { interlace: true }));
    expect(interlaced.sof).toEqual({ width: 2000, height: 1500 });
    expect(interlaced.jpeg).toEqual(plain.jpeg);

    // 16-bit RGBA with translucent pixels, interlaced, against the same pixels not interlaced.
    const line = (y: number) => Uint8Array.from({ length: 300 * 8 }, (_, i) => (i * 7 + y * 13) & 255);
    const rgba16 = (interlace: boolean) =>
      makeRawPng({ width: 300, height: 250, colorType: 6, bitDepth: 16, line, interlace });
    const a = await stored(await rgba16(false));
    const b = await stored(await rgba16(true));
    expect(b.sof).toEqual({ width: 300, height: 250 });
    expect(b.jpeg).toEqual(a.jpeg);
  }, 120_000);

  it("stores palette images, including indices past the palette's end (black), and refuses one without PLTE", async () => {
    const palette = Uint8Array.from([255, 0, 0, 0, 0, 255]);
    const png = await makeRawPng({
      width: 400,
      height: 300,
      colorType: 3,
      bitDepth: 8,
      palette,
      line: (y) => Uint8Array.from({ length: 400 }, (_, x) => (x + y) & 255), // mostly out of range
    });
    expect((await stored(png)).sof).toEqual({ width: 400, height: 300 });
    const onePixel = await makeRawPng({
      width: 1,
      height: 1,
      colorType: 3,
      bitDepth: 1,
      line: () => new Uint8Array(1),
    });
    expect(await refusal(onePixel)).toEqual(INVALID);
  });

  it("refuses broken chunks, truncated or corrupt data and impossible headers; ignores CRCs", async () => {
    const before = await bucketKeys();
    const good = await grey(300, 300);
    // A chunk length running past the end of the file.
    const longChunk = good.slice();
    new DataView(longChunk.buffer).setUint32(33, 0x7fffffff);
    expect(await refusal(longChunk)).toEqual(INVALID);
    // IDAT cut in half, and IDAT bytes scrambled (the inflate fails).
    const half = await makeRawPng({
      width: 300,
      height: 300,
      colorType: 0,
      bitDepth: 8,
      line: (y) => Uint8Array.from({ length: 300 }, (_, x) => (x * y) & 255),
      idat: (z) => z.subarray(0, z.length >> 1),
    });
    expect(await refusal(half)).toEqual(INVALID);
    const scrambled = await makeRawPng({
      width: 300,
      height: 300,
      colorType: 0,
      bitDepth: 8,
      line: (y) => Uint8Array.from({ length: 300 }, (_, x) => (x * y) & 255),
      idat: (z) => z.map((b, i) => (i > 2 ? b ^ 0x5a : b)),
    });
    expect(await refusal(scrambled)).toEqual(INVALID);
    // An empty IDAT.
    const emptyIdat = await makeRawPng({
      width: 300,
      height: 300,
      colorType: 0,
      bitDepth: 8,
      line: () => new Uint8Array(300),
      idat: () => new Uint8Array(),
    });
    expect(await refusal(emptyIdat)).toEqual(INVALID);
    // Bit depth 4 with colour type 2 (not allowed), and zero width.
    expect(await refusal(pngWithHeader(300, 300, 4, 2, 0, new Uint8Array(8)))).toEqual(INVALID);
    expect(await refusal(pngWithHeader(0, 300, 8, 2, 0, new Uint8Array(8)))).toEqual(INVALID);
    // IHDR only, no IDAT.
    expect(await refusal(good.subarray(0, 33))).toEqual(INVALID);
    expect(await bucketKeys()).toEqual(before);

    // A wrong CRC is ignored (as browsers do for ancillary data and most decoders for IDAT): the pixels are fine.
    const badCrc = good.slice();
    badCrc[29] = (badCrc[29] as number) ^ 0xff; // IHDR's CRC
    expect((await stored(badCrc)).sof).toEqual({ width: 300, height: 300 });
  });

  it("reads only the rows the header announces (trailing inflated data is ignored)", async () => {
    const extra = await makeRawPng({
      width: 500,
      height: 1000,
      colorType: 2,
      bitDepth: 8,
      line: () => new Uint8Array(1500).fill(200),
    });
    const ihdrHalf = extra.slice();
    new DataView(ihdrHalf.buffer).setUint32(20, 500); // height 1000 → 500, CRC left wrong
    expect((await stored(ihdrHalf)).sof).toEqual({ width: 500, height: 500 });
  });

  it("WebP: refuses a small canvas over a huge bitstream, and a canvas past the WebP pixel limit", async () => {
    expect(await refusal(webpVp8x(16, 16, [vp8l(16_383, 16_383)]))).toEqual(INVALID);
    expect(await refusal(webpVp8x(3000, 3000))).toEqual({
      reason: "too_many_pixels",
      message: "The media field has invalid image dimensions: at most 4000000 pixels are supported.",
    });
  });
});

describe("hostile images on every entry point (65,536 × 244 PNG)", () => {
  const message = TOO_WIDE.message;
  const mediaError = { message, errors: { media: [message] } };

  it("direct upload answers 422 and stores nothing", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const before = await bucketKeys();
    const res = await call("POST", `/api/posts/${postId}/media`, {
      key: ws.key,
      rawBody: mediaForm(await grey(65_536, 244, { bitDepth: 1 }), "wide.png"),
    });
    expect(res.status).toBe(422);
    expect(res.body).toEqual(mediaError);
    expect(await bucketKeys()).toEqual(before);
    expect(await mediaRows(ws.workspaceId)).toEqual([]);
  });

  it("from URL lists it as failed and stores nothing", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const png = await grey(65_536, 244, { bitDepth: 1 });
    const stop = fakeOrigin("https://hostile.fake", () => new Response(png));
    try {
      const res = await ws.api("POST", `/api/posts/${postId}/media/from-url`, { urls: ["https://hostile.fake/w.png"] });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ attached_count: 0, failed_urls: ["https://hostile.fake/w.png"] });
      expect(await mediaRows(ws.workspaceId)).toEqual([]);
    } finally {
      stop();
    }
  });

  it("a signed upload answers 422 and does not spend its token: the same URL then takes a good file", async () => {
    const ws = await createTestWorkspace();
    const issued = await ws.api("POST", "/api/uploads");
    const url = new URL(issued.body.upload_url);
    const send = async (bytes: Uint8Array) =>
      call("POST", `${url.pathname}${url.search}`, {
        rawBody: mediaForm(bytes, "f.png"),
        headers: { "CF-Connecting-IP": "203.0.113.221" },
      });
    const bad = await send(await grey(65_536, 244, { bitDepth: 1 }));
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual(mediaError);
    const good = await send(await grey(64, 64));
    expect(good.status, good.text).toBe(201);
    expect(good.body).toMatchObject({ upload_token: issued.body.upload_token, mime_type: "image/jpeg" });
  });
});
