/**
 * Reads what the media rules need from an MP4/MOV (ISO-BMFF / QuickTime) container — duration, display width and
 * height (the video track's rotation applied), rotation and codec — by ranged reads, never the whole file: the
 * top-level boxes are walked by their headers (`moov` may be at the start or after a 1 GB `mdat`), and inside
 * `moov` only moov/trak/edts/mdia/minf/stbl/mvex are descended and only mvhd, tkhd, elst, mdhd, hdlr (the one in
 * mdia: QuickTime's data-handler hdlr in minf is not the track type), the first stsd entry, trex and mehd are read.
 * The sample tables (stts, stsz, stco…, megabytes in long videos) are skipped by their headers. A fragmented file
 * (empty moov + mvex) is walked moof by moof for its length. Duration: mvhd, as ffprobe reports it; when that is 0,
 * mehd, else the longest track as presented (docs/media.md, "Videos: container check and metadata").
 *
 * Why not mp4box.js: it parses the whole `moov` (every sample table into objects) from buffers pushed in file
 * order, so memory grows with the video's length and a trailing `moov` means feeding it everything before; we need
 * five small boxes.
 *
 * It also tells a real container from a file that only starts like one (#21): `ftyp` (when present) first, a `moov`
 * with an `mvhd` of non-zero timescale, and a video track with a size — else InvalidVideoError (422).
 */

export interface VideoInfo {
  durationSeconds: number;
  /** As displayed: the track's rotation applied (a 1920×1080 track rotated 90° is 1080 wide, 1920 high). */
  width: number;
  height: number;
  rotation: 0 | 90 | 180 | 270;
  /** The first sample entry's four-character code of the video track: avc1, hvc1, hev1, mp4v, av01… */
  codec: string | null;
}

export class InvalidVideoError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidVideoError";
  }
}

/** Returns `length` bytes at `offset` (fewer only at the end of the file). */
export type RangeReader = (offset: number, length: number) => Promise<Uint8Array>;

const BLOCK_BYTES = 64 * 1024;
/** A real file has a handful of top-level boxes; a walk past this is garbage, not a container. */
const MAX_BOXES = 4096;
const LEAF_BYTES = 128;
const CONTAINERS = new Set(["moov", "trak", "mdia", "minf", "stbl"]);

/** Serves small reads from 64 KiB blocks, so walking headers costs one ranged read per block touched. */
class BlockReader {
  private readonly blocks = new Map<number, Promise<Uint8Array>>();
  constructor(
    private readonly read: RangeReader,
    readonly size: number,
  ) {}

  private block(index: number): Promise<Uint8Array> {
    let b = this.blocks.get(index);
    if (!b) {
      const offset = index * BLOCK_BYTES;
      b = this.read(offset, Math.min(BLOCK_BYTES, this.size - offset));
      this.blocks.set(index, b);
      if (this.blocks.size > 16) this.blocks.delete(this.blocks.keys().next().value as number);
    }
    return b;
  }

  async bytes(offset: number, length: number): Promise<Uint8Array> {
    const end = Math.min(offset + length, this.size);
    if (offset >= end) return new Uint8Array(0);
    const out = new Uint8Array(end - offset);
    let pos = offset;
    while (pos < end) {
      const index = Math.floor(pos / BLOCK_BYTES);
      const block = await this.block(index);
      const from = pos - index * BLOCK_BYTES;
      const take = Math.min(block.length - from, end - pos);
      if (take <= 0) throw new InvalidVideoError("The file ended early.");
      out.set(block.subarray(from, from + take), pos - offset);
      pos += take;
    }
    return out;
  }
}

interface Box {
  type: string;
  /** Offset of the payload (after the header) and of the end of the box. */
  start: number;
  end: number;
}

const fourcc = (b: Uint8Array, at: number) => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);

async function readBox(r: BlockReader, offset: number, limit: number): Promise<Box> {
  const h = await r.bytes(offset, 16);
  if (h.length < 8) throw new InvalidVideoError("A box header is cut off.");
  const dv = new DataView(h.buffer, h.byteOffset, h.byteLength);
  let size = dv.getUint32(0);
  const type = fourcc(h, 4);
  let header = 8;
  if (size === 1) {
    if (h.length < 16) throw new InvalidVideoError("A box header is cut off.");
    size = dv.getUint32(8) * 2 ** 32 + dv.getUint32(12);
    header = 16;
  } else if (size === 0) {
    size = limit - offset;
  }
  if (size < header || offset + size > limit) throw new InvalidVideoError(`The ${type} box overruns its container.`);
  return { type, start: offset + header, end: offset + size };
}

async function* children(r: BlockReader, start: number, end: number): AsyncGenerator<Box> {
  let count = 0;
  for (let offset = start; offset + 8 <= end; ) {
    if (++count > MAX_BOXES) throw new InvalidVideoError("Too many boxes.");
    const box = await readBox(r, offset, end);
    yield box;
    offset = box.end;
  }
}

interface Track {
  id: number;
  /** The media handler: the `hdlr` directly in `mdia` (vide, soun…), never the data handler in `minf`. */
  handler: string | null;
  width: number;
  height: number;
  matrix: number[] | null;
  timescale: number;
  duration: number;
  /** Sum of the edit list's segment durations (movie timescale); null without an edit list. */
  edits: number | null;
  codec: string | null;
  sampleWidth: number;
  sampleHeight: number;
  /** Fragmented files: trex's default sample duration and the end of the last fragment seen (media timescale). */
  defaultSampleDuration: number;
  fragmentEnd: number;
}

const u64 = (dv: DataView, at: number) => dv.getUint32(at) * 2 ** 32 + dv.getUint32(at + 4);

async function leaf(r: BlockReader, box: Box, length = LEAF_BYTES): Promise<DataView> {
  const b = await r.bytes(box.start, Math.min(length, box.end - box.start));
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

/** `version` 0 and 1 layouts of mvhd/mdhd: timescale and duration. */
function timing(dv: DataView): { timescale: number; duration: number } {
  if (dv.byteLength < 20) throw new InvalidVideoError("A header box is cut off.");
  const v1 = dv.getUint8(0) === 1;
  if (v1 && dv.byteLength < 32) throw new InvalidVideoError("A header box is cut off.");
  return v1
    ? { timescale: dv.getUint32(20), duration: u64(dv, 24) }
    : { timescale: dv.getUint32(12), duration: dv.getUint32(16) };
}

/** Edit lists longer than this are not summed (a real one has one to a few entries). */
const MAX_EDITS = 1024;

/** The edit list's total presented time, empty edits included (ISO/IEC 14496-12 §8.6.6), in movie timescale. */
async function editListSum(r: BlockReader, box: Box): Promise<number> {
  const head = await leaf(r, box, 8);
  if (head.byteLength < 8) throw new InvalidVideoError("The edit list is cut off.");
  const v1 = head.getUint8(0) === 1;
  const count = head.getUint32(4);
  if (count > MAX_EDITS) throw new InvalidVideoError("The edit list is too long.");
  const entry = v1 ? 20 : 12;
  const b = await r.bytes(box.start + 8, count * entry);
  if (b.length < count * entry) throw new InvalidVideoError("The edit list is cut off.");
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let sum = 0;
  for (let i = 0; i < count; i++) sum += v1 ? u64(dv, i * entry) : dv.getUint32(i * entry);
  return sum;
}

async function readTrack(r: BlockReader, trak: Box): Promise<Track> {
  const t: Track = {
    id: 0,
    handler: null,
    width: 0,
    height: 0,
    matrix: null,
    timescale: 0,
    duration: 0,
    edits: null,
    codec: null,
    sampleWidth: 0,
    sampleHeight: 0,
    defaultSampleDuration: 0,
    fragmentEnd: 0,
  };
  const walk = async (start: number, end: number, parent: string): Promise<void> => {
    for await (const box of children(r, start, end)) {
      if (CONTAINERS.has(box.type) || box.type === "edts") await walk(box.start, box.end, box.type);
      else if (box.type === "tkhd") {
        const dv = await leaf(r, box);
        const v1 = dv.getUint8(0) === 1;
        const at = v1 ? 52 : 40;
        if (dv.byteLength < at + 44) throw new InvalidVideoError("The track header is cut off.");
        t.id = dv.getUint32(v1 ? 20 : 12);
        t.matrix = [0, 1, 3, 4].map((i) => dv.getInt32(at + i * 4) / 65536);
        t.width = dv.getUint32(at + 36) / 65536;
        t.height = dv.getUint32(at + 40) / 65536;
      } else if (box.type === "mdhd") Object.assign(t, timing(await leaf(r, box)));
      else if (box.type === "elst" && parent === "edts") t.edits = await editListSum(r, box);
      else if (box.type === "hdlr" && parent === "mdia") {
        // QuickTime (and ffmpeg's mov muxer) also puts a data-handler hdlr (dhlr / "url ") in minf: not the type.
        const dv = await leaf(r, box, 12);
        if (dv.byteLength >= 12) t.handler = fourcc(new Uint8Array(dv.buffer, dv.byteOffset, 12), 8);
      } else if (box.type === "stsd") {
        const dv = await leaf(r, box, 44);
        const b = new Uint8Array(dv.buffer, dv.byteOffset, dv.byteLength);
        if (dv.byteLength >= 16 && dv.getUint32(4) > 0) t.codec = fourcc(b, 12).trim() || null;
        if (dv.byteLength >= 44) {
          t.sampleWidth = dv.getUint16(40);
          t.sampleHeight = dv.getUint16(42);
        }
      }
    }
  };
  await walk(trak.start, trak.end, "trak");
  return t;
}

/** A fragmented file's moof boxes after the moov: at most this many top-level boxes are walked. */
const MAX_FRAGMENT_BOXES = 20_000;
/** Largest trun read (16 bytes a sample: ≈65,000 samples in one fragment). */
const MAX_TRUN_BYTES = 1024 * 1024;

/**
 * A fragmented file (ISO/IEC 14496-12 §8.8): the moov holds no samples, each moof/traf does. A track ends where
 * its last fragment ends: its tfdt (decode time of the fragment's first sample) plus its trun durations (each
 * sample's, or tfhd's / trex's default).
 */
async function readFragment(r: BlockReader, moof: Box, tracks: Map<number, Track>): Promise<void> {
  for await (const traf of children(r, moof.start, moof.end)) {
    if (traf.type !== "traf") continue;
    let track: Track | undefined;
    let defaultDuration = 0;
    let decodeTime: number | null = null;
    let total = 0;
    for await (const box of children(r, traf.start, traf.end)) {
      if (box.type === "tfhd") {
        const dv = await leaf(r, box, 32);
        if (dv.byteLength < 8) throw new InvalidVideoError("A fragment header is cut off.");
        const flags = dv.getUint32(0) & 0xffffff;
        track = tracks.get(dv.getUint32(4));
        defaultDuration = track?.defaultSampleDuration ?? 0;
        if (flags & 0x08) {
          const at = 8 + (flags & 0x01 ? 8 : 0) + (flags & 0x02 ? 4 : 0);
          if (dv.byteLength < at + 4) throw new InvalidVideoError("A fragment header is cut off.");
          defaultDuration = dv.getUint32(at);
        }
      } else if (box.type === "tfdt") {
        const dv = await leaf(r, box, 12);
        if (dv.byteLength < 8) throw new InvalidVideoError("A fragment's decode time is cut off.");
        decodeTime = dv.getUint8(0) === 1 ? (dv.byteLength >= 12 ? u64(dv, 4) : 0) : dv.getUint32(4);
      } else if (box.type === "trun") {
        if (box.end - box.start > MAX_TRUN_BYTES) throw new InvalidVideoError("A fragment is too large to read.");
        const b = await r.bytes(box.start, box.end - box.start);
        const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
        if (dv.byteLength < 8) throw new InvalidVideoError("A fragment's sample table is cut off.");
        const flags = dv.getUint32(0) & 0xffffff;
        const count = dv.getUint32(4);
        let at = 8 + (flags & 0x01 ? 4 : 0) + (flags & 0x04 ? 4 : 0);
        if (!(flags & 0x100)) total += count * defaultDuration;
        else {
          const entry = 4 * [0x100, 0x200, 0x400, 0x800].filter((f) => flags & f).length;
          if (at + count * entry > dv.byteLength) throw new InvalidVideoError("A fragment's sample table is cut off.");
          for (let i = 0; i < count; i++, at += entry) total += dv.getUint32(at);
        }
      }
    }
    if (track) track.fragmentEnd = Math.max(track.fragmentEnd, (decodeTime ?? track.fragmentEnd) + total);
  }
}

/** 16.16 matrix [a b c d] → the rotation a player applies (ISO/IEC 14496-12 §8.3.2; QuickTime uses the same). */
function rotationOf(m: number[] | null): VideoInfo["rotation"] {
  if (!m) return 0;
  const [a, b, c, d] = m as [number, number, number, number];
  if (Math.abs(a) < 1e-6 && Math.abs(d) < 1e-6) return b > 0 && c < 0 ? 90 : b < 0 && c > 0 ? 270 : 0;
  if (a < 0 && d < 0) return 180;
  return 0;
}

/**
 * How long a track plays: its edit list's presented time when it has one (what players show: B-frame delay and
 * AAC priming are cut, a trimmed clip is its trimmed length), else its media duration; for a fragmented file, the
 * end of its last fragment when that is later.
 */
function trackSeconds(t: Track, movieTimescale: number): number {
  const media = t.timescale > 0 ? Math.max(t.duration, t.fragmentEnd) / t.timescale : 0;
  if (t.edits && t.fragmentEnd === 0) return t.edits / movieTimescale;
  return media;
}

export async function readMp4Info(read: RangeReader, size: number): Promise<VideoInfo> {
  const r = new BlockReader(read, size);
  let moov: Box | null = null;
  let first = true;
  for await (const box of children(r, 0, size)) {
    if (box.type === "ftyp" && !first) throw new InvalidVideoError("ftyp is not the first box.");
    first = false;
    if (box.type === "moov") {
      moov = box;
      break;
    }
  }
  if (!moov) throw new InvalidVideoError("The file has no moov box.");

  let movie: { timescale: number; duration: number } | null = null;
  let fragmented = false;
  let fragmentDuration = 0;
  const tracks: Track[] = [];
  const trex = new Map<number, number>();
  for await (const box of children(r, moov.start, moov.end)) {
    if (box.type === "mvhd") movie = timing(await leaf(r, box));
    else if (box.type === "trak") tracks.push(await readTrack(r, box));
    else if (box.type === "mvex") {
      fragmented = true;
      for await (const m of children(r, box.start, box.end)) {
        const dv = await leaf(r, m, 24);
        if (m.type === "trex" && dv.byteLength >= 16) trex.set(dv.getUint32(4), dv.getUint32(12));
        else if (m.type === "mehd" && dv.byteLength >= 8)
          fragmentDuration = dv.getUint8(0) === 1 ? (dv.byteLength >= 12 ? u64(dv, 4) : 0) : dv.getUint32(4);
      }
    }
  }
  if (!movie || movie.timescale === 0) throw new InvalidVideoError("The movie header is missing.");
  const video = tracks.find((t) => t.handler === "vide");
  if (!video) throw new InvalidVideoError("The file has no video track.");
  const trackWidth = Math.round(video.width) || video.sampleWidth;
  const trackHeight = Math.round(video.height) || video.sampleHeight;
  if (!trackWidth || !trackHeight) throw new InvalidVideoError("The video track has no size.");

  if (fragmented && fragmentDuration === 0) {
    const byId = new Map(tracks.map((t) => [t.id, t]));
    for (const t of tracks) t.defaultSampleDuration = trex.get(t.id) ?? 0;
    let count = 0;
    for (let offset = moov.end; offset + 8 <= size; ) {
      if (++count > MAX_FRAGMENT_BOXES) throw new InvalidVideoError("Too many fragments.");
      const box = await readBox(r, offset, size);
      if (box.type === "moof") await readFragment(r, box, byId);
      offset = box.end;
    }
  }

  // The movie header's duration, as ffprobe and the networks' transcoders report it (the longest track, edits
  // included); when it is 0 (fragmented, or a muxer that leaves it), mehd, else the longest picture or sound track
  // as presented (docs/media.md, "Videos: container check and metadata").
  const header = Math.max(movie.duration, fragmentDuration) / movie.timescale;
  const seconds =
    header > 0
      ? header
      : Math.max(
          0,
          ...tracks
            .filter((t) => t.handler === "vide" || t.handler === "soun")
            .map((t) => trackSeconds(t, movie.timescale)),
        );
  const rotation = rotationOf(video.matrix);
  const turned = rotation === 90 || rotation === 270;
  return {
    durationSeconds: Math.round(seconds * 1000) / 1000,
    width: turned ? trackHeight : trackWidth,
    height: turned ? trackWidth : trackHeight,
    rotation,
    codec: video.codec,
  };
}

/** A RangeReader over a stored R2 object. */
export function r2RangeReader(bucket: R2Bucket, key: string): RangeReader {
  return async (offset, length) => {
    const obj = await bucket.get(key, { range: { offset, length } });
    if (!obj) throw new InvalidVideoError("The stored video is missing.");
    return new Uint8Array(await obj.arrayBuffer());
  };
}
