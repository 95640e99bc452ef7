import { describe, expect, it } from "vitest";
import { concatBytes } from "../../src/media/byte-source";
import { InvalidVideoError, type RangeReader, readMp4Info } from "../../src/media/mp4-info";
import { isoBmff, mp4Moov } from "./fixtures";

const reader =
  (bytes: Uint8Array): RangeReader =>
  async (offset, length) =>
    bytes.slice(offset, offset + length);
const info = (bytes: Uint8Array) => readMp4Info(reader(bytes), bytes.length);

describe("readMp4Info (issue 16)", () => {
  it("reads duration, displayed size and codec of a fast-start MP4", async () => {
    expect(await info(isoBmff(4096, "isom", { width: 1080, height: 1920, seconds: 12.5 }))).toEqual({
      durationSeconds: 12.5,
      width: 1080,
      height: 1920,
      rotation: 0,
      codec: "avc1",
    });
  });

  it("applies the track rotation (a phone's portrait video is stored landscape with a 90° matrix)", async () => {
    for (const rotation of [90, 270] as const) {
      expect(await info(isoBmff(4096, "qt  ", { width: 1920, height: 1080, rotation, codec: "hvc1" }))).toEqual({
        durationSeconds: 12.5,
        width: 1080,
        height: 1920,
        rotation,
        codec: "hvc1",
      });
    }
    expect((await info(isoBmff(4096, "isom", { width: 1920, height: 1080, rotation: 180 }))).width).toBe(1920);
  });

  it("reads version-1 (64-bit) headers", async () => {
    expect(await info(isoBmff(4096, "isom", { v1: true, seconds: 3600.25, width: 640, height: 360 }))).toEqual({
      durationSeconds: 3600.25,
      width: 640,
      height: 360,
      rotation: 0,
      codec: "avc1",
    });
  });

  it("finds a moov after a 1 GB mdat (64-bit size) with a few small ranged reads, never the whole file", async () => {
    const ftyp = isoBmff(24);
    const moov = mp4Moov({ seconds: 95, width: 720, height: 1280 });
    const mdatSize = 1024 ** 3;
    const mdatHeader = new Uint8Array(16);
    const dv = new DataView(mdatHeader.buffer);
    dv.setUint32(0, 1);
    mdatHeader.set([0x6d, 0x64, 0x61, 0x74], 4);
    dv.setUint32(8, Math.floor(mdatSize / 2 ** 32));
    dv.setUint32(12, mdatSize % 2 ** 32);
    const head = concatBytes([ftyp, mdatHeader]);
    const moovAt = 24 + mdatSize;
    const size = moovAt + moov.length;
    const reads: [number, number][] = [];
    // A virtual 1 GB file: header bytes where they are, zeros in the mdat, the moov at the end.
    const virtual: RangeReader = async (offset, length) => {
      reads.push([offset, length]);
      const out = new Uint8Array(Math.min(length, size - offset));
      for (let i = 0; i < out.length; i++) {
        const at = offset + i;
        out[i] = at < head.length ? head[at]! : at >= moovAt ? moov[at - moovAt]! : 0;
      }
      return out;
    };
    expect(await readMp4Info(virtual, size)).toEqual({
      durationSeconds: 95,
      width: 720,
      height: 1280,
      rotation: 0,
      codec: "avc1",
    });
    expect(reads.length).toBeLessThanOrEqual(3);
    expect(reads.reduce((n, [, l]) => n + l, 0)).toBeLessThanOrEqual(3 * 64 * 1024);
  });

  it("refuses what only starts like a container", async () => {
    const refused = async (bytes: Uint8Array) => {
      const err = await info(bytes).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidVideoError);
      return (err as Error).message;
    };
    // 12 bytes of ftyp header and nothing else; ftyp + mdat without a moov.
    expect(await refused(isoBmff(4096).slice(0, 12))).toBe("The ftyp box overruns its container.");
    expect(await refused(isoBmff(64))).toBe("The file has no moov box.");
    // A moov whose declared size runs past the end of the file.
    const cut = isoBmff(4096).slice(0, 300);
    expect(await refused(cut)).toBe("The moov box overruns its container.");
    // ftyp after another box.
    const free = new Uint8Array([0, 0, 0, 8, 0x66, 0x72, 0x65, 0x65]);
    expect(await refused(concatBytes([free, isoBmff(24), mp4Moov()]))).toBe("ftyp is not the first box.");
  });

  it("refuses a moov without a video track or movie header", async () => {
    const audioOnly = concatBytes([isoBmff(24), mp4Moov()]);
    // Turn the video handler into a second audio one.
    const at = new TextDecoder("latin1").decode(audioOnly).lastIndexOf("vide");
    audioOnly.set(new TextEncoder().encode("soun"), at);
    await expect(info(audioOnly)).rejects.toThrow("The file has no video track.");
    const noMvhd = concatBytes([isoBmff(24), mp4Moov()]);
    const m = new TextDecoder("latin1").decode(noMvhd).indexOf("mvhd");
    noMvhd.set(new TextEncoder().encode("free"), m);
    await expect(info(noMvhd)).rejects.toThrow("The movie header is missing.");
  });
});
