/**
 * Videos written by a real muxer (ffmpeg), committed in test/media/fixtures/video/ and made by
 * scripts/make-video-fixtures.mjs (each command in test/media/fixtures/video/README.md). Every upload and publish
 * test that needs "a video" uses one of these (limitVideo for a duration or side at a network's bound, paddedVideo
 * for a byte size); the hand-built containers in fixtures.ts (isoBmff) are kept only for malformed files.
 */
import clipMovUrl from "./fixtures/video/clip.mov?inline";
import clipMp4Url from "./fixtures/video/clip.mp4?inline";
import faststartUrl from "./fixtures/video/faststart.mp4?inline";
import fragmentedUrl from "./fixtures/video/fragmented.mp4?inline";
import largesizeUrl from "./fixtures/video/largesize.mov?inline";
import mdatToEndUrl from "./fixtures/video/mdat-to-end.mp4?inline";
import phoneMovUrl from "./fixtures/video/phone.mov?inline";
import phoneMp4Url from "./fixtures/video/phone.mp4?inline";
import portraitUrl from "./fixtures/video/portrait-hevc.mov?inline";
import trimmedUrl from "./fixtures/video/trimmed.mp4?inline";

function bytes(dataUrl: string): Uint8Array {
  const bin = atob(dataUrl.slice(dataUrl.indexOf(",") + 1));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export interface RealVideo {
  /** The file name it is committed under. */
  name: string;
  bytes: Uint8Array;
  /**
   * What the container says, as `ffmpeg -i` reports it (mvhd: 3.024 s for "-t 3", the AAC track's priming
   * included; ffmpeg -i prints 00:00:03.02), the sides as displayed.
   */
  durationSeconds: number;
  width: number;
  height: number;
  rotation: 0 | 90 | 180 | 270;
  codec: string;
}

const h264 = { width: 320, height: 240, rotation: 0, codec: "avc1" } as const;

/** QuickTime layout (ffmpeg -f mov): wide + mdat + moov, a data-handler hdlr (dhlr / "url ") in each minf. */
export const clipMov: RealVideo = { name: "clip.mov", bytes: bytes(clipMovUrl), durationSeconds: 3.024, ...h264 };
/** ISO-BMFF, ffmpeg's default layout: moov after mdat. */
export const clipMp4: RealVideo = { name: "clip.mp4", bytes: bytes(clipMp4Url), durationSeconds: 3.024, ...h264 };
/** ISO-BMFF with -movflags +faststart: moov first. */
export const faststartMp4: RealVideo = {
  name: "faststart.mp4",
  bytes: bytes(faststartUrl),
  durationSeconds: 3.024,
  ...h264,
};
/** A phone's portrait video: HEVC (hvc1) 320×180 stored, 90° tkhd matrix → 180×320 shown; QuickTime layout. */
export const portraitMov: RealVideo = {
  name: "portrait-hevc.mov",
  bytes: bytes(portraitUrl),
  durationSeconds: 3.024,
  width: 180,
  height: 320,
  rotation: 90,
  codec: "hvc1",
};
/**
 * Fragmented MP4 (empty moov: mvhd says 0; one moof per second). No edit list, so the AAC track's priming counts:
 * its last fragment ends at 3.067 s (tfdt + trun durations), past the picture's 3 s; ffmpeg -i says 00:00:03.07.
 */
export const fragmentedMp4: RealVideo = {
  name: "fragmented.mp4",
  bytes: bytes(fragmentedUrl),
  durationSeconds: 3.067,
  ...h264,
};
/** clip.mp4 stream-copied from 1 s: 3 s of media, 2 s edit lists, mvhd 3.024 s (ffmpeg -i says 00:00:03.02). */
export const trimmedMp4: RealVideo = { name: "trimmed.mp4", bytes: bytes(trimmedUrl), durationSeconds: 3.024, ...h264 };
/** clip.mov with wide+mdat turned into one 64-bit (size 1, largesize) mdat header, as ffmpeg does past 4 GB. */
export const largesizeMov: RealVideo = {
  name: "largesize.mov",
  bytes: bytes(largesizeUrl),
  durationSeconds: 3.024,
  ...h264,
};
/** faststart.mp4 with its last box (mdat) sized 0, "to the end of the file". */
export const mdatToEndMp4: RealVideo = {
  name: "mdat-to-end.mp4",
  bytes: bytes(mdatToEndUrl),
  durationSeconds: 3.024,
  ...h264,
};

/**
 * A phone's portrait video that every network taking video accepts (9:16, 540×960 shown, 4.524 s, ≥ 75 KB):
 * QuickTime, H.264 stored 960×540 with the 90° matrix.
 */
export const phoneMov: RealVideo = {
  name: "phone.mov",
  bytes: bytes(phoneMovUrl),
  durationSeconds: 4.524,
  width: 540,
  height: 960,
  rotation: 90,
  codec: "avc1",
};
/** The same picture as ISO-BMFF MP4 stored upright 540×960, moov after mdat. */
export const phoneMp4: RealVideo = {
  name: "phone.mp4",
  bytes: bytes(phoneMp4Url),
  durationSeconds: 4.524,
  width: 540,
  height: 960,
  rotation: 0,
  codec: "avc1",
};

export const realVideos = [
  phoneMov,
  phoneMp4,
  clipMov,
  clipMp4,
  faststartMp4,
  portraitMov,
  fragmentedMp4,
  trimmedMp4,
  largesizeMov,
  mdatToEndMp4,
];

/**
 * A real moov-first video grown to `size` bytes by a trailing `free` box (skipped by every reader), for tests
 * whose subject is the file size. Same duration and sides as faststart.mp4.
 */
export function paddedVideo(size: number, from: RealVideo = faststartMp4): Uint8Array {
  const pad = size - from.bytes.length;
  if (pad < 8) throw new Error(`paddedVideo: ${size} bytes is smaller than ${from.name} + 8`);
  const out = new Uint8Array(size);
  out.set(from.bytes);
  const dv = new DataView(out.buffer);
  dv.setUint32(from.bytes.length, pad);
  out.set([0x66, 0x72, 0x65, 0x65], from.bytes.length + 4);
  return out;
}

/**
 * Limit fixtures (test/media/fixtures/video/limits/, scripts/make-video-fixtures.mjs `LIMITS`): ffmpeg H.264, a
 * still grey picture, no audio, the exact duration and sides in the name — for tests whose subject is a duration or
 * a side at a network's bound. Pad one to a byte size with paddedVideo(size, limitVideo(…)).
 */
const limitFiles = import.meta.glob<string>("./fixtures/video/limits/*.mp4", {
  query: "?inline",
  import: "default",
  eager: true,
});

export function limitVideo(width: number, height: number, seconds: number): RealVideo {
  const name = `${width}x${height}-${seconds}s.mp4`;
  const url = limitFiles[`./fixtures/video/limits/${name}`];
  if (!url)
    throw new Error(`limitVideo: no ${name}; add [${width}, ${height}, ${seconds}, …] to LIMITS and run the script`);
  return { name, bytes: bytes(url), durationSeconds: seconds, width, height, rotation: 0, codec: "avc1" };
}
