// Hostile images (issue 21): the peak memory each one costs in the production pipeline (src/media/ingest.ts),
// next to the 128 MB a Worker isolate has. Run: npm run bench -- hostile
// Per case: a fresh `wrangler dev` of bench/media/worker (WASM memories only grow, so the heap it reports is the
// peak for that file), one POST /ingest of the file, the codecs' WASM heaps as the Worker reports them, and the
// workerd process's peak RSS growth over idle (VmHWM − idle VmRSS: WASM + JS heap + the request body).

import path from "node:path";
import { deflateSync } from "node:zlib";
import sharp from "sharp";
import { machine, today, writeSection } from "../lib/results.mjs";
import { startWorker } from "../lib/worker.mjs";
import { photoLike } from "../media/images.mjs";
import { findWorkerds, hostLine, watchMemory } from "../media/proc.mjs";

const PORT = Number(process.env.BENCH_PORT ?? 8789);
const CONFIG = path.join(import.meta.dirname, "../media/worker/wrangler.jsonc");
const MB = 1024 * 1024;
const ISOLATE_MB = 128;

function crc32(buf) {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return ~c >>> 0;
}
function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "latin1");
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}
/** A PNG of `height` identical rows (filter 0) — tiny files for huge sizes. */
function flatPng(width, height, { depth = 8, colorType = 0, interlace = 0, row } = {}) {
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[colorType];
  const stride = Math.ceil((width * channels * depth) / 8);
  const line = Buffer.alloc(1 + stride);
  if (row) row(line.subarray(1));
  let raw;
  if (!interlace) raw = Buffer.concat(Array.from({ length: height }, () => line));
  else {
    // Adam7 of a flat image: every pass row is the same bytes cut to the pass width.
    const parts = [];
    for (const [x0, y0, dx, dy] of [
      [0, 0, 8, 8],
      [4, 0, 8, 8],
      [0, 4, 4, 8],
      [2, 0, 4, 4],
      [0, 2, 2, 4],
      [1, 0, 2, 2],
      [0, 1, 1, 2],
    ]) {
      const w = Math.ceil((width - x0) / dx);
      const h = Math.ceil((height - y0) / dy);
      if (w <= 0 || h <= 0) continue;
      const passLine = line.subarray(0, 1 + Math.ceil((w * channels * depth) / 8));
      for (let y = 0; y < h; y++) parts.push(passLine);
    }
    raw = Buffer.concat(parts);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([depth, colorType, 0, 0, interlace], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}
/** A header-only header: RIFF/WEBP with a VP8X canvas of w × h. */
function hugeWebp(w, h) {
  const b = Buffer.alloc(30);
  b.write("RIFFxxxxWEBPVP8X", 0, "latin1");
  b.writeUInt32LE(22, 4);
  b.writeUInt32LE(10, 16);
  b.writeUIntLE(w - 1, 24, 3);
  b.writeUIntLE(h - 1, 27, 3);
  return b;
}
const photo = (w, h) => sharp(photoLike(w, h), { raw: { width: w, height: h, channels: 3 } });

const CASES = [
  // (the production default MEDIA_MAX_FULL_DECODE_PIXELS is 4 MP; the worker uses 8 MP so the 8 MP WebP rows
  // show why)
  ["65,536 × 244 PNG (issue: 139 MB + 64 MB before)", () => flatPng(65_536, 244)],
  ["100 × 70,000 PNG (issue: stored as height 4,464)", () => flatPng(100, 70_000)],
  ["2^32−1 × 2^32−1 PNG header", () => flatPng(1, 1).fill(0xff, 16, 24)],
  ["WebP VP8X canvas 2^24 × 2^24", () => hugeWebp(1 << 24, 1 << 24)],
  ["65,500 × 16 PNG (widest)", () => flatPng(65_500, 16)],
  ["16 × 65,500 PNG (tallest)", () => flatPng(16, 65_500)],
  ["65,500 × 244 RGBA PNG (16 MP, widest)", () => flatPng(65_500, 244, { colorType: 6 })],
  ["4,000 × 4,000 RGBA zeros PNG (16 MP bomb)", () => flatPng(4000, 4000, { colorType: 6 })],
  ["4,000 × 4,000 RGBA 16-bit interlaced PNG", () => flatPng(4000, 4000, { colorType: 6, depth: 16, interlace: 1 })],
  ["2,400 × 2,000 photo PNG (4.8 MP)", () => photo(2400, 2000).png().toBuffer()],
  ["2,400 × 2,000 photo PNG, interlaced", () => photo(2400, 2000).png({ progressive: true }).toBuffer()],
  ["2,000 × 2,000 photo WebP lossy (4 MP)", () => photo(2000, 2000).webp({ quality: 90 }).toBuffer()],
  ["2,000 × 2,000 photo WebP lossless (4 MP)", () => photo(2000, 2000).webp({ lossless: true }).toBuffer()],
  ["3,266 × 2,449 photo WebP lossy (8 MP)", () => photo(3266, 2449).webp({ quality: 90 }).toBuffer()],
  ["3,266 × 2,449 photo WebP lossless (8 MP)", () => photo(3266, 2449).webp({ lossless: true }).toBuffer()],
  [
    "16,383 × 488 photo WebP lossless (8 MP, extreme aspect)",
    () => photo(16_383, 488).webp({ lossless: true }).toBuffer(),
  ],
  // Inflated volume 48 MiB (RGB at 16 MP, RGBA at 12 MP) against the 64 MiB of the 16 MP RGBA rows above.
  ["4,000 × 4,000 RGB zeros PNG (16 MP, 48 MB inflated)", () => flatPng(4000, 4000, { colorType: 2 })],
  ["3,464 × 3,464 RGBA zeros PNG (12 MP, 48 MB inflated)", () => flatPng(3464, 3464, { colorType: 6 })],
  ["65,500 × 192 RGBA PNG (12.6 MP, widest, 48 MB inflated)", () => flatPng(65_500, 192, { colorType: 6 })],
];

const only = process.env.BENCH_CASES?.split(",").map(Number);
const rows = [];
let worst = 0;
for (const [i, [name, make]] of CASES.entries()) {
  if (only && !only.includes(i)) continue;
  const body = await make();
  const worker = await startWorker({ config: CONFIG, port: PORT, healthPath: "/health" });
  let line;
  try {
    const peak = watchMemory(findWorkerds(worker.pid));
    const res = await fetch(`${worker.base}/ingest`, { method: "POST", body });
    const text = await res.text();
    let out;
    try {
      out = JSON.parse(text);
    } catch {
      // Not the bench Worker's answer (it answers JSON for everything): wrangler's own page, e.g. the Worker was
      // reloaded mid-request because a source file changed. Shown as it is, never taken for a result.
      const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1] ?? text.slice(0, 80);
      throw new Error(`HTTP ${res.status}, not JSON: ${title}; worker log: ${worker.lines.slice(-3).join(" / ")}`);
    }
    const rss = peak().growthMb;
    worst = Math.max(worst, rss);
    const heap = Object.entries(out.heap ?? {})
      .map(([k, v]) => `${k} ${(v / MB).toFixed(1)}`)
      .join(", ");
    const total = Object.values(out.heap ?? {}).reduce((a, b) => a + b, 0) / MB;
    const result =
      out.status === "stored"
        ? `stored, SOF ${out.sof?.width} × ${out.sof?.height}`
        : out.status === "422"
          ? `422 ${out.reason}`
          : `**${out.status}: ${out.message}**`;
    line = `| ${name} | ${(body.length / 1024).toFixed(0)} KB | ${result} | ${total.toFixed(1)} (${heap || "none"}) | ${rss.toFixed(0)} |`;
  } catch (err) {
    line = `| ${name} | ${(body.length / 1024).toFixed(0)} KB | failed: ${String(err.message).slice(0, 80)} | | |`;
  } finally {
    await worker.stop();
  }
  console.log(line);
  rows.push(line);
}

writeSection(
  "hostile",
  `## Hostile images: peak memory per file (\`npm run bench -- hostile\`)

${today()} · ${machine()}

${hostLine()}

Each file through the production pipeline (\`ingestMedia\`, production limits: 16 MP, WebP
\`MEDIA_MAX_FULL_DECODE_PIXELS\`), in a fresh Worker per file. **WASM heap** is the largest WebAssembly memory each
codec reached (memories only grow until the pipeline drops an instance past 24 MiB, so this is the peak);
**peak RSS growth** is the workerd process's VmHWM minus its idle VmRSS: WASM + JS heap + the request body — an
upper bound of what the isolate used (the runtime's own buffers are in it too). The isolate limit is ${ISOLATE_MB} MB.

| file | size | result | WASM heap MB (per codec) | peak RSS growth MB |
|---|---|---|---|---|
${rows.join("\n")}

Largest peak RSS growth: **${worst.toFixed(0)} MB** of ${ISOLATE_MB} MB.

What keeps each bounded: sizes a JPEG cannot hold (> 65,500 px a side) and pixel counts over the limits are refused
from the header, before any decoder runs; PNG never exists decoded in full (rows are inflated natively and encoded
in ≈2 MB strips; interlaced PNGs in bands of ≤ 8 MiB, one inflate pass per band); libjpeg-turbo's heap starts at
2 MiB and grows to one strip (it was a fixed 50 MiB); WebP is the only whole decode (≈4 bytes per pixel in
libwebp's heap + the same again as the pixels handed to JavaScript), bounded by \`MEDIA_MAX_FULL_DECODE_PIXELS\`.
`,
);
