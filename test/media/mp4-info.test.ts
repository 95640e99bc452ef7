import { describe, expect, it } from "vitest";
import { concatBytes } from "../../src/media/byte-source";
import { InvalidVideoError, type RangeReader, readMp4Info } from "../../src/media/mp4-info";
import { isoBmff, mp4Moov } from "./fixtures";
import { clipMov, fragmentedMp4, largesizeMov, limitVideo, portraitMov, realVideos, trimmedMp4 } from "./videos";

const reader =
  (bytes: Uint8Array): RangeReader =>
  async (offset, length) =>
    bytes.slice(offset, offset + length);
const info = (bytes: Uint8Array) => readMp4Info(reader(bytes), bytes.length);

describe("readMp4Info: files written by a real muxer (issue 29)", () => {
  it.each(realVideos.map((v) => [v.name, v] as const))("reads %s as written", async (_name, video) => {
    expect(await info(video.bytes)).toEqual({
      durationSeconds: video.durationSeconds,
      width: video.width,
      height: video.height,
      rotation: video.rotation,
      codec: video.codec,
    });
  });

  it.each([
    [1080, 1920, 2],
    [1080, 1920, 3],
    [1080, 1920, 60],
    [1080, 1920, 61],
    [1080, 1920, 300],
    [1080, 1920, 301],
    [1080, 1920, 900],
    [1080, 1920, 960],
    [19, 1920, 12.5],
    [20, 1920, 12.5],
    [1080, 1080, 30],
    [540, 960, 90],
    [1920, 1080, 200],
    [1920, 1080, 14400],
    [1920, 1080, 14460],
    [2304, 4096, 600],
    [2304, 4097, 30],
    [1280, 720, 3],
    [3840, 2160, 3],
    [13801, 601, 3],
  ])("reads the limit fixture %i×%i, %f s, as ffmpeg -i does", async (width, height, seconds) => {
    expect(await info(limitVideo(width, height, seconds).bytes)).toEqual({
      durationSeconds: seconds,
      width,
      height,
      rotation: 0,
      codec: "avc1",
    });
  });

  it("takes the track type from mdia's hdlr, not the data handler QuickTime puts in minf", async () => {
    // ffmpeg's mov muxer (like every iPhone) writes hdlr "mhlr vide" in mdia and hdlr "dhlr url " in minf.
    const latin1 = new TextDecoder("latin1").decode(clipMov.bytes);
    expect(latin1.split("dhlrurl ").length - 1).toBe(2);
    expect((await info(clipMov.bytes)).codec).toBe("avc1");
  });

  it("reads a phone's portrait matrix (stored 320×180, shown 180×320)", async () => {
    const b = portraitMov.bytes;
    const tkhd = new TextDecoder("latin1").decode(b).indexOf("tkhd");
    const dv = new DataView(b.buffer, b.byteOffset);
    // a, b, c, d of the 16.16 matrix, as an iPhone writes it for a portrait video.
    expect([0, 1, 3, 4].map((i) => dv.getInt32(tkhd + 44 + i * 4) / 65536)).toEqual([0, 1, -1, 0]);
    expect(await info(b)).toMatchObject({ width: 180, height: 320, rotation: 90 });
  });

  it("uses the movie header's duration as ffprobe does; the edit lists only when it says 0", async () => {
    // trimmed.mp4 holds 3 s of samples, edit lists of 2 s and an mvhd of 3.024 s (what ffmpeg -i reports).
    expect((await info(trimmedMp4.bytes)).durationSeconds).toBe(3.024);
    const zeroed = trimmedMp4.bytes.slice();
    const mvhd = new TextDecoder("latin1").decode(zeroed).indexOf("mvhd");
    const dv = new DataView(zeroed.buffer);
    expect(dv.getUint32(mvhd + 20) / dv.getUint32(mvhd + 16)).toBe(3.024);
    dv.setUint32(mvhd + 20, 0);
    expect((await info(zeroed)).durationSeconds).toBe(2);
  });

  it("walks a fragmented file's moof boxes for its length (its moov says 0)", async () => {
    expect((await info(fragmentedMp4.bytes)).durationSeconds).toBe(3.067);
    // Cut after the first fragment: the length is what the file holds.
    const latin1 = new TextDecoder("latin1").decode(fragmentedMp4.bytes);
    const secondMoof = latin1.indexOf("moof", latin1.indexOf("moof") + 4) - 4;
    const first = await info(fragmentedMp4.bytes.slice(0, secondMoof));
    expect(first.durationSeconds).toBeGreaterThan(0.9);
    expect(first.durationSeconds).toBeLessThan(1.1);
  });
});

describe("readMp4Info (issue 16)", () => {
  it("reads version-1 (64-bit) headers", async () => {
    // Hand-built on purpose: ffmpeg writes a version-1 mvhd/tkhd only past 2^32 units of the movie timescale (1,000
    // a second: 49.7 days), so no committed file can carry one.
    expect(await info(isoBmff(4096, "isom", { v1: true, seconds: 3600.25, width: 640, height: 360 }))).toEqual({
      durationSeconds: 3600.25,
      width: 640,
      height: 360,
      rotation: 0,
      codec: "avc1",
    });
  });

  it("finds a real moov after a 1 GB mdat (64-bit size) with a few small ranged reads, never the whole file", async () => {
    // largesize.mov: ftyp, a 16-byte mdat header (size 1 + largesize), the samples, moov. Grow its mdat to 1 GB.
    const real = largesizeMov.bytes;
    const latin1 = new TextDecoder("latin1").decode(real);
    const mdatAt = latin1.indexOf("mdat") - 4;
    const moovAt = latin1.indexOf("moov") - 4;
    const head = real.slice(0, mdatAt + 16);
    const moov = real.slice(moovAt);
    const mdatSize = 1024 ** 3;
    const dv = new DataView(head.buffer);
    dv.setUint32(mdatAt + 8, Math.floor(mdatSize / 2 ** 32));
    dv.setUint32(mdatAt + 12, mdatSize % 2 ** 32);
    const virtualMoovAt = mdatAt + mdatSize;
    const size = virtualMoovAt + moov.length;
    const reads: [number, number][] = [];
    // A virtual 1 GB file: header bytes where they are, zeros in the mdat, the real moov at the end.
    const virtual: RangeReader = async (offset, length) => {
      reads.push([offset, length]);
      const out = new Uint8Array(Math.min(length, size - offset));
      for (let i = 0; i < out.length; i++) {
        const at = offset + i;
        out[i] = at < head.length ? head[at]! : at >= virtualMoovAt ? moov[at - virtualMoovAt]! : 0;
      }
      return out;
    };
    expect(await readMp4Info(virtual, size)).toEqual({
      durationSeconds: 3.024,
      width: 320,
      height: 240,
      rotation: 0,
      codec: "avc1",
    });
    expect(reads.length).toBeLessThanOrEqual(3);
    expect(reads.reduce((n, [, l]) => n + l, 0)).toBeLessThanOrEqual(3 * 64 * 1024);
  });

  // The files below are hand-built on purpose: each is malformed (cut off, no moov, ftyp not first, no video track,
  // no movie header), which no muxer writes.
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
