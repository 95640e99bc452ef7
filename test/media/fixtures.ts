import { env } from "cloudflare:workers";
import { loadConfig } from "../../src/config";
import type { WorkspaceContext } from "../../src/context";
import { createDb } from "../../src/db/client";
import { concatBytes } from "../../src/media/byte-source";
import type { TestWorkspace } from "../support/harness";

/** Tiny media files built in the test (no big transcodes in unit tests), and posts inserted straight into D1. */

const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

/** 1×1 GIF89a. */
export const GIF_1X1 = b64("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==");
/** 1×1 lossless WebP (VP8L). */
export const WEBP_LOSSLESS_1X1 = b64("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==");
/** 1×1 lossy WebP (VP8). */
export const WEBP_LOSSY_1X1 = b64("UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA");

/** Sampling factors of a 4:2:0 colour frame, as both our encoders write it (jpegInfo `sampling`). */
export const SAMPLING_420: Array<[number, number]> = [
  [2, 2],
  [1, 1],
  [1, 1],
];

/**
 * A hand-made baseline JPEG's structure (SOI, APP0, SOF0 with the given size, DQT, SOS, entropy-coded filler, EOI):
 * it passes the marker walk at ingest (jpegStructureProblem) and is stored byte for byte, never decoded. `padding`
 * filler bytes of scan data, at least the one bit per 8×8 block any real scan holds. `scan: false` leaves out DQT and
 * SOS (the filler is then not image data): a header a decoder refuses before allocating anything.
 */
export function jpegHeader(width: number, height: number, padding = 0, scan = true): Uint8Array {
  const app0 = [
    0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
  ];
  const sof = [
    0xff,
    0xc0,
    0x00,
    0x11,
    0x08,
    height >> 8,
    height & 255,
    width >> 8,
    width & 255,
    0x03,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
  ];
  const dqt = [0xff, 0xdb, 0x00, 0x84, 0x00, ...new Array(64).fill(1), 0x01, ...new Array(64).fill(1)];
  const sos = [0xff, 0xda, 0x00, 0x0c, 0x03, 1, 0x00, 2, 0x11, 3, 0x11, 0x00, 0x3f, 0x00];
  const blocks = Math.ceil(width / 8) * Math.ceil(height / 8) + 2 * Math.ceil(width / 16) * Math.ceil(height / 16);
  const data = scan ? Math.max(padding, Math.ceil(blocks / 8) + 1) : padding;
  const head = [0xff, 0xd8, ...app0, ...sof, ...(scan ? [...dqt, ...sos] : [])];
  const out = new Uint8Array(head.length + data + 2);
  out.set(head, 0);
  for (let i = 0; i < data; i++) out[head.length + i] = i & 0x7f;
  out.set([0xff, 0xd9], out.length - 2);
  return out;
}

export interface Mp4Options {
  width?: number;
  height?: number;
  seconds?: number;
  /** Track rotation written into the tkhd matrix. */
  rotation?: 0 | 90 | 180 | 270;
  codec?: string;
  /** Version-1 (64-bit) mvhd/tkhd/mdhd. */
  v1?: boolean;
}

function box(type: string, ...parts: Uint8Array[]): Uint8Array {
  const body = concatBytes(parts);
  const out = new Uint8Array(8 + body.length);
  new DataView(out.buffer).setUint32(0, out.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(body, 8);
  return out;
}

function words(...values: number[]): Uint8Array {
  const out = new Uint8Array(values.length * 4);
  const dv = new DataView(out.buffer);
  values.forEach((v, i) => {
    dv.setInt32(i * 4, v);
  });
  return out;
}

const MATRIX: Record<number, number[]> = {
  0: [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000],
  90: [0, 0x10000, 0, -0x10000, 0, 0, 0, 0, 0x40000000],
  180: [-0x10000, 0, 0, 0, -0x10000, 0, 0, 0, 0x40000000],
  270: [0, -0x10000, 0, 0x10000, 0, 0, 0, 0, 0x40000000],
};

/**
 * A hand-built `moov` box: an mvhd, a video track (tkhd, mdhd, hdlr vide, stsd) and an audio track. Only for
 * deliberately malformed files and the version-1 header case (no muxer writes one below 49 days); a test that
 * needs "a video" uses a real one from test/media/videos.ts (ffmpeg output: realVideos, limitVideo, paddedVideo).
 */
export function mp4Moov(opts: Mp4Options = {}): Uint8Array {
  const { width = 1080, height = 1920, seconds = 12.5, rotation = 0, codec = "avc1", v1 = false } = opts;
  const timescale = 1000;
  const duration = Math.round(seconds * timescale);
  const times = (ts: number, d: number) => (v1 ? words(0, 0, 0, 0, ts, 0, d) : words(0, 0, ts, d));
  const version = (v: Uint8Array) => {
    if (v1) v[0] = 1;
    return v;
  };
  const mvhd = box(
    "mvhd",
    version(concatBytes([words(0), times(timescale, duration)])),
    words(0x10000),
    new Uint8Array(2 + 10),
    words(...MATRIX[0]!),
    new Uint8Array(24),
    words(3),
  );
  const tkhd = (w: number, h: number, m: number[]) =>
    box(
      "tkhd",
      version(v1 ? words(0, 0, 0, 0, 0, 1, 0, 0, duration) : words(0, 0, 0, 1, 0, duration)),
      new Uint8Array(8 + 8),
      words(...m),
      words(w * 65536, h * 65536),
    );
  const mdhd = box("mdhd", version(concatBytes([words(0), times(timescale * 30, duration * 30)])), new Uint8Array(4));
  const hdlr = (kind: string) => box("hdlr", words(0, 0), new TextEncoder().encode(kind), new Uint8Array(13));
  const entry = new Uint8Array(78);
  new DataView(entry.buffer).setUint16(24, width);
  new DataView(entry.buffer).setUint16(26, height);
  const stsd = box("stsd", words(0, 1), box(codec, entry));
  const stbl = (sd: Uint8Array) =>
    box("stbl", sd, box("stts", words(0, 1, 375, 40)), box("stsz", words(0, 0, 2, 10, 10)));
  const videoTrak = box(
    "trak",
    tkhd(width, height, MATRIX[rotation]!),
    box("mdia", mdhd, hdlr("vide"), box("minf", stbl(stsd))),
  );
  const audioTrak = box(
    "trak",
    tkhd(0, 0, MATRIX[0]!),
    box("mdia", mdhd, hdlr("soun"), box("minf", stbl(box("stsd", words(0, 1), box("mp4a", new Uint8Array(28)))))),
  );
  return box("moov", mvhd, audioTrak, videoTrak);
}

/**
 * An MP4/MOV file of `size` bytes with the given major brand (`isom` → mp4, `qt  ` → quicktime): ftyp, a real
 * `moov` (see mp4Moov) and an `mdat` filling the rest. Below ~1 KB there is no room for a moov: ftyp + mdat only
 * (enough for type sniffing, and refused at upload as not a valid video).
 */
export function isoBmff(size: number, brand = "isom", opts: Mp4Options = {}): Uint8Array {
  const out = new Uint8Array(size);
  const ftyp = `\0\0\0\x18ftyp${brand}\0\0\x02\0${brand}iso2`;
  for (let i = 0; i < ftyp.length; i++) out[i] = ftyp.charCodeAt(i);
  const moov = mp4Moov(opts);
  const withMoov = size >= 24 + moov.length + 8;
  if (withMoov) out.set(moov, 24);
  const mdatAt = withMoov ? 24 + moov.length : 24;
  const mdat = "\0\0\0\0mdat";
  for (let i = 0; i < mdat.length; i++) out[mdatAt + i] = mdat.charCodeAt(i);
  for (let i = mdatAt + 8; i < size; i++) out[i] = (i * 31 + (i >> 8)) & 255;
  return out;
}

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 255] as number) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  dv.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** The PNG signature, the given chunks and IEND, as one file. */
export function pngFile(chunks: Uint8Array[]): Uint8Array {
  return concatBytes([
    new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    ...chunks,
    chunk("IEND", new Uint8Array()),
  ]);
}

export async function deflate(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * An 8-bit RGBA (colorType 6) or RGB (2) PNG whose pixels come from `pixel(x, y)`. `declared` overrides the IHDR
 * size (decompression-bomb headers); `truncate` cuts the IDAT data.
 */
export async function makePng(
  width: number,
  height: number,
  pixel: (x: number, y: number) => [number, number, number, number] = (x, y) => [x * 40, y * 40, 128, 255],
  opts: { alpha?: boolean; declared?: [number, number]; truncate?: number } = {},
): Promise<Uint8Array> {
  const alpha = opts.alpha ?? true;
  const channels = alpha ? 4 : 3;
  const raw = new Uint8Array(height * (1 + width * channels));
  let at = 0;
  for (let y = 0; y < height; y++) {
    raw[at++] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const p = pixel(x, y);
      for (let c = 0; c < channels; c++) raw[at++] = p[c] as number;
    }
  }
  let idat = await deflate(raw);
  if (opts.truncate !== undefined) idat = idat.subarray(0, opts.truncate);
  const [w, h] = opts.declared ?? [width, height];
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, w);
  dv.setUint32(4, h);
  ihdr.set([8, alpha ? 6 : 2, 0, 0, 0], 8);
  return pngFile([chunk("IHDR", ihdr), chunk("IDAT", idat)]);
}

/** Applies PNG filter `type` to one scanline (`prev` is the previous raw scanline; zeros for the first row). */
function filterLine(type: number, line: Uint8Array, prev: Uint8Array, bpp: number): Uint8Array {
  if (type === 0) return line.slice();
  const out = new Uint8Array(line.length);
  for (let i = 0; i < line.length; i++) {
    const a = i >= bpp ? (line[i - bpp] as number) : 0;
    const b = prev[i] as number;
    let predictor: number;
    if (type === 1) predictor = a;
    else if (type === 2) predictor = b;
    else if (type === 3) predictor = (a + b) >> 1;
    else {
      const c = i >= bpp ? (prev[i - bpp] as number) : 0;
      const pa = Math.abs(b - c);
      const pb = Math.abs(a - c);
      const pc = Math.abs(a + b - 2 * c);
      predictor = pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
    }
    out[i] = ((line[i] as number) - predictor) & 255;
  }
  return out;
}

const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** Pixels x0, x0+dx, … of a packed scanline, packed again (any bit depth). */
function pickPixels(line: Uint8Array, width: number, bits: number, x0: number, dx: number): Uint8Array {
  const count = Math.ceil((width - x0) / dx);
  const out = new Uint8Array(Math.ceil((count * bits) / 8));
  for (let i = 0; i < count; i++) {
    const src = (x0 + i * dx) * bits;
    for (let k = 0; k < bits; k++) {
      const bit = ((line[(src + k) >> 3] as number) >> (7 - ((src + k) & 7))) & 1;
      const dst = i * bits + k;
      out[dst >> 3] = (out[dst >> 3] as number) | (bit << (7 - (dst & 7)));
    }
  }
  return out;
}

/**
 * A PNG of any colour type and bit depth from raw scanlines (`line(y)` returns the packed, unfiltered bytes of row
 * y). Row y uses filter `y % 5`, so every filter type (none, sub, up, average, Paeth) is exercised. `interlace`
 * writes the same pixels as Adam7 passes. `idat` post-processes the compressed stream (hostile-file tests).
 */
export async function makeRawPng(opts: {
  width: number;
  height: number;
  colorType: 0 | 2 | 3 | 4 | 6;
  bitDepth: 1 | 2 | 4 | 8 | 16;
  line: (y: number) => Uint8Array;
  palette?: Uint8Array;
  transparency?: Uint8Array;
  interlace?: boolean;
  idat?: (compressed: Uint8Array) => Uint8Array;
}): Promise<Uint8Array> {
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[opts.colorType];
  const bits = channels * opts.bitDepth;
  const bpp = Math.max(1, bits >> 3);
  // Each (sub)image: its scanlines, filtered row by row with a fresh "previous row" of zeros.
  const images: Uint8Array[][] = [];
  const full = Array.from({ length: opts.height }, (_, y) => opts.line(y));
  const stride = Math.ceil((opts.width * bits) / 8);
  for (const [y, line] of full.entries())
    if (line.length !== stride) throw new Error(`row ${y}: ${line.length} bytes, expected ${stride}`);
  if (!opts.interlace) images.push(full);
  else
    for (const [x0, y0, dx, dy] of ADAM7) {
      if (x0 >= opts.width || y0 >= opts.height) continue;
      const rows: Uint8Array[] = [];
      for (let y = y0; y < opts.height; y += dy) rows.push(pickPixels(full[y] as Uint8Array, opts.width, bits, x0, dx));
      images.push(rows);
    }
  const parts: Uint8Array[] = [];
  for (const rows of images) {
    let prev: Uint8Array = new Uint8Array(rows[0]?.length ?? 0);
    for (const [y, line] of rows.entries()) {
      parts.push(new Uint8Array([y % 5]), filterLine(y % 5, line, prev, bpp));
      prev = line;
    }
  }
  const raw = concatBytes(parts);
  const ihdr = new Uint8Array(13);
  const dv = new DataView(ihdr.buffer);
  dv.setUint32(0, opts.width);
  dv.setUint32(4, opts.height);
  ihdr.set([opts.bitDepth, opts.colorType, 0, 0, opts.interlace ? 1 : 0], 8);
  const compressed = await deflate(raw);
  return pngFile([
    chunk("IHDR", ihdr),
    ...(opts.palette ? [chunk("PLTE", opts.palette)] : []),
    ...(opts.transparency ? [chunk("tRNS", opts.transparency)] : []),
    chunk("IDAT", opts.idat ? opts.idat(compressed) : compressed),
  ]);
}

/** multipart/form-data body with one `media` file (Request serialises FormData itself). */
export function mediaForm(bytes: Uint8Array, filename = "file.bin", type = "application/octet-stream"): FormData {
  const form = new FormData();
  form.append("media", new File([bytes], filename, { type }));
  return form;
}

/** A post with one row per content type (`enabled` per entry), inserted directly in D1. */
export async function insertPost(
  ws: { workspaceId: string },
  platforms: { platform: string; contentType: string; enabled?: boolean }[],
): Promise<{ postId: string; rowIds: string[] }> {
  const now = Date.now();
  const postId = crypto.randomUUID();
  const stmts = [
    env.DB.prepare(
      "INSERT INTO posts (id, workspace_id, content, status, scheduled_at, created_at, updated_at) VALUES (?, ?, ?, 'draft', ?, ?, ?)",
    ).bind(postId, ws.workspaceId, "Hello", now + 86_400_000, now, now),
  ];
  const rowIds: string[] = [];
  platforms.forEach((p, i) => {
    const accountId = crypto.randomUUID();
    const rowId = crypto.randomUUID();
    rowIds.push(rowId);
    stmts.push(
      env.DB.prepare(
        "INSERT INTO social_accounts (id, workspace_id, platform, display_name, username, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).bind(accountId, ws.workspaceId, p.platform, `${p.platform} account`, `${p.platform}_user`, now, now),
      env.DB.prepare(
        "INSERT INTO post_platforms (id, post_id, social_account_id, platform, content_type, enabled, display_name, display_username, position, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      ).bind(
        rowId,
        postId,
        accountId,
        p.platform,
        p.contentType,
        p.enabled === false ? 0 : 1,
        `${p.platform} account`,
        `${p.platform}_user`,
        i,
        now,
        now,
      ),
    );
  });
  await env.DB.batch(stmts);
  return { postId, rowIds };
}

export async function mediaRows(workspaceId: string) {
  const { results } = await env.DB.prepare("SELECT * FROM media WHERE workspace_id = ? ORDER BY created_at")
    .bind(workspaceId)
    .all();
  return results as Record<string, unknown>[];
}

export async function bucketKeys(): Promise<string[]> {
  const listed = await env.MEDIA_BUCKET.list({ prefix: "medias/" });
  return listed.objects.map((o) => o.key).sort();
}

export function workspaceContext(ws: TestWorkspace): WorkspaceContext {
  return {
    env,
    db: createDb(env.DB),
    config: loadConfig(env),
    now: () => Date.now(),
    requestId: "test",
    webhookOutbox: { recorded: false },
    origin: "https://api.test",
    waitUntil: () => {},
    workspaceId: ws.workspaceId,
    apiKeyId: ws.keyId,
    apiKeyScope: "full",
    apiKeyExpiresAt: null,
    person: null,
  };
}

export const MEDIA_ITEM_KEYS = [
  "id",
  "path",
  "url",
  "type",
  "mime_type",
  "original_filename",
  "size",
  "width",
  "height",
  "duration_seconds",
  "alt",
];
