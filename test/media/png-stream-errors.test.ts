import { describe, expect, it } from "vitest";
import { openPng, PngFormatError } from "../../src/media/png-stream";
import { makeRawPng } from "./fixtures";

/**
 * A broken PNG ends its decode with one PngFormatError, whichever row the inflate fails at, interlaced or not, and
 * its reader closes cleanly (the inflater is fed by hand: see `inflate` in src/media/png-stream.ts).
 */

const W = 300;
const H = 300;
const lines = (y: number) => Uint8Array.from({ length: W }, (_, x) => (x * y) & 255);

async function decodeError(png: Uint8Array): Promise<unknown> {
  const reader = openPng(png);
  try {
    await reader.readRows(H, new Uint8Array(W * H * 3));
    return null;
  } catch (err) {
    return err;
  } finally {
    await reader.close();
  }
}

const CASES = [
  { name: "IDAT cut in half", idat: (z: Uint8Array) => z.subarray(0, z.length >> 1) },
  { name: "IDAT cut after the zlib header", idat: (z: Uint8Array) => z.subarray(0, 2) },
  {
    name: "IDAT scrambled after the zlib header",
    idat: (z: Uint8Array) => z.map((b, i) => (i > 2 ? b ^ 0x5a : b)),
  },
  // Only the stream's checksum is cut: the inflater refuses the stream when it ends, so the PNG is refused too.
  { name: "IDAT without its last byte", idat: (z: Uint8Array) => z.subarray(0, z.length - 1) },
];

describe("streaming PNG decoder on broken data", () => {
  for (const interlace of [false, true]) {
    for (const c of CASES) {
      it(`${c.name}${interlace ? ", interlaced" : ""}: one PngFormatError, the reader closes`, async () => {
        const png = await makeRawPng({
          width: W,
          height: H,
          colorType: 0,
          bitDepth: 8,
          interlace,
          line: lines,
          idat: c.idat,
        });
        const err = await decodeError(png);
        expect(err).toBeInstanceOf(PngFormatError);
        expect((err as Error).message).toBe("Corrupt image data.");
      });
    }
  }
});
