import { describe, expect, it } from "vitest";
import { detectType, readDimensions } from "../../src/media/sniff";
import { GIF_1X1, isoBmff, jpegHeader, makePng, WEBP_LOSSLESS_1X1, WEBP_LOSSY_1X1 } from "./fixtures";

const text = (s: string) => Uint8Array.from(s, (c) => c.charCodeAt(0));

describe("detectType (bytes only)", () => {
  it("recognises the six allowed types", async () => {
    expect(detectType(jpegHeader(10, 10))).toEqual({ mime: "image/jpeg", kind: "image" });
    expect(detectType(await makePng(2, 2))).toEqual({ mime: "image/png", kind: "image" });
    expect(detectType(GIF_1X1)).toEqual({ mime: "image/gif", kind: "image" });
    expect(detectType(WEBP_LOSSLESS_1X1)).toEqual({ mime: "image/webp", kind: "image" });
    // Hand-built on purpose: 64 bytes (an ftyp and the start of an mdat) — the sniffer reads only the ftyp brand, and
    // the file is otherwise truncated (no moov); real files are sniffed in the upload tests.
    expect(detectType(isoBmff(64, "isom"))).toEqual({ mime: "video/mp4", kind: "video" });
    expect(detectType(isoBmff(64, "mp42"))).toEqual({ mime: "video/mp4", kind: "video" });
    expect(detectType(isoBmff(64, "qt  "))).toEqual({ mime: "video/quicktime", kind: "video" });
    expect(detectType(text("\0\0\0\x08wide\0\0\0\0mdat"))).toEqual({ mime: "video/quicktime", kind: "video" });
  });

  it("refuses everything else, including look-alikes", () => {
    expect(detectType(text("%PDF-1.7\n%abc"))).toBeNull();
    expect(detectType(text("<svg xmlns='http://www.w3.org/2000/svg'/>"))).toBeNull();
    expect(detectType(text("GIF88a..........."))).toBeNull();
    expect(detectType(text("RIFF\0\0\0\0WAVEfmt "))).toBeNull();
    expect(detectType(isoBmff(64, "heic"))).toBeNull(); // HEIC shares ftyp but is an image
    expect(detectType(isoBmff(64, "avif"))).toBeNull();
    expect(detectType(new Uint8Array())).toBeNull();
    expect(detectType(new Uint8Array([0xff, 0xd8]))).toBeNull();
  });
});

describe("readDimensions (headers only)", () => {
  it("reads each image format", async () => {
    expect(readDimensions("image/jpeg", jpegHeader(640, 480, 3000))).toEqual({ width: 640, height: 480 });
    expect(readDimensions("image/png", await makePng(3, 2))).toEqual({ width: 3, height: 2 });
    expect(readDimensions("image/gif", GIF_1X1)).toEqual({ width: 1, height: 1 });
    expect(readDimensions("image/webp", WEBP_LOSSLESS_1X1)).toEqual({ width: 1, height: 1 });
    expect(readDimensions("image/webp", WEBP_LOSSY_1X1)).toEqual({ width: 1, height: 1 });
    expect(readDimensions("image/png", await makePng(1, 1, undefined, { declared: [50000, 40000] }))).toEqual({
      width: 50000,
      height: 40000,
    });
  });

  it("returns null for truncated or broken headers", async () => {
    expect(readDimensions("image/jpeg", jpegHeader(640, 480).subarray(0, 24))).toBeNull();
    expect(readDimensions("image/jpeg", new Uint8Array([0xff, 0xd8, 0xff, 0xda, 0, 2]))).toBeNull();
    expect(readDimensions("image/png", (await makePng(3, 2)).subarray(0, 20))).toBeNull();
    expect(readDimensions("image/png", await makePng(1, 1, undefined, { declared: [0, 10] }))).toBeNull();
    expect(readDimensions("image/webp", WEBP_LOSSY_1X1.subarray(0, 20))).toBeNull();
    expect(readDimensions("image/gif", GIF_1X1.subarray(0, 8))).toBeNull();
  });
});
