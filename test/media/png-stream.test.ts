import { describe, expect, it } from "vitest";
import { decodePng } from "../../src/media/codecs";
import { openPng } from "../../src/media/png-stream";
import { flattenOnWhite } from "../../src/media/transcode";
import { makeRawPng } from "./fixtures";

/**
 * The streaming PNG decoder (src/media/png-stream.ts) against @jsquash/png's whole-image decoder, on PNGs whose rows
 * cycle through all five filter types, in every colour type and bit depth the transcoder handles.
 */

const W = 13; // odd, so sub-byte rows end mid-byte
const H = 11;

/** Deterministic bytes that vary along both axes, so every filter has something to predict. */
const sample = (x: number, y: number, c: number) => (x * 37 + y * 91 + c * 53 + ((x * y) ^ (c * 7))) & 255;

function bytesPerRow(channels: number, bitDepth: number) {
  return Math.ceil((W * channels * bitDepth) / 8);
}

function rows(channels: number, bitDepth: number) {
  return (y: number) => {
    const line = new Uint8Array(bytesPerRow(channels, bitDepth));
    for (let i = 0; i < line.length; i++) line[i] = sample(i, y, 0);
    return line;
  };
}

/** Rows whose alpha channel takes the values 0, 255 and in-between (8-bit only). */
function rowsWithAlpha(channels: number) {
  return (y: number) => {
    const line = new Uint8Array(W * channels);
    for (let x = 0; x < W; x++) {
      for (let c = 0; c < channels - 1; c++) line[x * channels + c] = sample(x, y, c);
      line[x * channels + channels - 1] = [0, 255, sample(x, y, 9)][(x + y) % 3] as number;
    }
    return line;
  };
}

const palette = Uint8Array.from({ length: 256 * 3 }, (_, i) => (i * 7) & 255);

const CASES = [
  { name: "RGB 8-bit", colorType: 2, bitDepth: 8, line: rows(3, 8) },
  { name: "RGB 16-bit", colorType: 2, bitDepth: 16, line: rows(3, 16) },
  { name: "RGBA 8-bit", colorType: 6, bitDepth: 8, line: rowsWithAlpha(4) },
  { name: "RGBA 16-bit (opaque)", colorType: 6, bitDepth: 16, line: rows(4, 16) },
  { name: "grey 8-bit", colorType: 0, bitDepth: 8, line: rows(1, 8) },
  { name: "grey 4-bit", colorType: 0, bitDepth: 4, line: rows(1, 4) },
  { name: "grey 1-bit", colorType: 0, bitDepth: 1, line: rows(1, 1) },
  { name: "grey + alpha 8-bit", colorType: 4, bitDepth: 8, line: rowsWithAlpha(2) },
  { name: "palette 8-bit with tRNS", colorType: 3, bitDepth: 8, line: rows(1, 8), palette, transparency: true },
  { name: "palette 2-bit", colorType: 3, bitDepth: 2, line: rows(1, 2), palette: palette.subarray(0, 12) },
] as const;

const ALL = [
  ...CASES.map((c) => ({ ...c, interlace: false })),
  ...CASES.map((c) => ({ ...c, name: `${c.name}, interlaced (Adam7)`, interlace: true })),
];

describe("streaming PNG decoder", () => {
  it.each(ALL)("decodes $name exactly like @jsquash/png (all five filter types)", async (c) => {
    const png = await makeRawPng({
      interlace: c.interlace,
      width: W,
      height: H,
      colorType: c.colorType,
      bitDepth: c.bitDepth,
      line: c.line,
      palette: "palette" in c ? c.palette : undefined,
      transparency: "transparency" in c ? Uint8Array.from({ length: 200 }, (_, i) => (i * 13) & 255) : undefined,
    });

    const reference = await decodePng(png.slice().buffer);
    flattenOnWhite(reference.data);
    const expected = new Uint8Array(W * H * 3);
    for (let i = 0; i < W * H; i++) expected.set(reference.data.subarray(i * 4, i * 4 + 3), i * 3);

    const reader = openPng(png);
    expect(reader).toMatchObject({ width: W, height: H, colorType: c.colorType, bitDepth: c.bitDepth });
    const actual = new Uint8Array(W * H * 3);
    await reader!.readRows(4, actual.subarray(0, 4 * W * 3)); // two reads: state carries across calls
    await reader!.readRows(H - 4, actual.subarray(4 * W * 3));
    await reader!.close();
    expect(actual).toEqual(expected);
  });

  it("assembles an interlaced PNG in bands smaller than the image (one inflate pass per band)", async () => {
    const c = CASES[2]; // RGBA 8-bit with alpha
    const png = await makeRawPng({ width: W, height: H, colorType: c.colorType, bitDepth: c.bitDepth, line: c.line });
    const interlaced = await makeRawPng({
      ...{ width: W, height: H },
      colorType: c.colorType,
      bitDepth: 8,
      line: c.line,
      interlace: true,
    });
    const read = async (bytes: Uint8Array, bandBytes?: number) => {
      const reader = openPng(bytes, bandBytes);
      const out = new Uint8Array(W * H * 3);
      for (const [from, to] of [
        [0, 2],
        [2, 7],
        [7, H],
      ] as const)
        await reader.readRows(to - from, out.subarray(from * W * 3, to * W * 3));
      await reader.close();
      return out;
    };
    const expected = await read(png);
    expect(await read(interlaced, W * 3 * 3)).toEqual(expected); // 3 rows per band: 4 bands for 11 rows
    expect(await read(interlaced, 1)).toEqual(expected); // one row per band
  });
});
