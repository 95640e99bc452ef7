// The JPEG decoder's WASM heap (src/media/jpeg-decoder.ts, scripts/jpeg-decoder) measured against the estimate that
// fit-image.ts refuses by (src/media/jpeg-decode-heap.ts, this very function): progressive and baseline, 4:2:0
// and 4:4:4 (sharp writes no 4:2:2), phone sizes and the widest and tallest frames. Run: npx node bench/fit/decoder-heap.mjs
// Node runs the same .wasm the Worker bundles (a fresh instance per decode, so its memory is that decode's peak:
// WebAssembly memories never shrink). The image content only changes the file size, not the heap beyond it.
import { readFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";
import { jpegDecodeBytes } from "../../src/media/jpeg-decode-heap.ts";
import { jpegInfo } from "../../src/media/jpeg-meta.ts";
import { machine, today, writeSection } from "../lib/results.mjs";
import { photoLike } from "../media/images.mjs";

const MB = 1024 * 1024;
const MAX_DECODE_HEAP_BYTES = 48 * MB; // src/media/fit-image.ts
const wasm = new WebAssembly.Module(
  readFileSync(path.join(import.meta.dirname, "../../src/media/wasm/jpeg-decoder.wasm")),
);

/** Decodes every row at scale/8 with a fresh instance; its memory after the decode (the peak). */
function decoderHeap(bytes, scale) {
  let memory;
  const zeroCounts = (a, b) => {
    const v = new DataView(memory.buffer);
    v.setUint32(a, 0, true);
    v.setUint32(b, 0, true);
    return 0;
  };
  const fail = (what) => () => {
    throw new Error(what);
  };
  const lib = new WebAssembly.Instance(wasm, {
    env: { jpeg_error: (code) => fail(`libjpeg error ${code}`)() },
    wasi_snapshot_preview1: {
      environ_get: () => 0,
      environ_sizes_get: zeroCounts,
      fd_close: () => 8,
      fd_seek: () => 8,
      fd_write: () => 8,
      proc_exit: fail("exit"),
    },
  }).exports;
  memory = lib.memory;
  const at = lib.dec_input(bytes.length);
  new Uint8Array(memory.buffer, at, bytes.length).set(bytes);
  lib.dec_header(bytes.length);
  lib.dec_begin(scale);
  for (let done = 0; done < lib.dec_height(); done += lib.dec_got()) if (!lib.dec_read(16)) throw new Error("oom");
  if (lib.dec_warnings()) throw new Error("corrupt");
  return memory.buffer.byteLength;
}

/** Busy, deterministic pixels for the very wide frames (photoLike would take minutes there). */
function texture(w, h) {
  const px = Buffer.alloc(w * h * 3);
  for (let i = 0; i < px.length; i++) px[i] = ((i * 7919) >>> 3) & 255;
  return px;
}

const SIZES = [
  ["12 MP phone photo", 4032, 3024, photoLike],
  ["16 MP", 4608, 3456, photoLike],
  ["3 MP", 2000, 1500, photoLike],
  ["widest (65,500 × 240)", 65_500, 240, texture],
  ["tallest (240 × 65,500)", 240, 65_500, texture],
];
const rows = [];
let worstMargin = Infinity;
for (const [label, w, h, make] of SIZES) {
  const raw = make(w, h);
  for (const sub of ["4:2:0", "4:4:4"]) {
    for (const progressive of [true, false]) {
      const bytes = await sharp(raw, { raw: { width: w, height: h, channels: 3 }, limitInputPixels: false })
        .jpeg({ quality: 92, progressive, chromaSubsampling: sub })
        .toBuffer();
      const frame = jpegInfo(bytes);
      const estimate = jpegDecodeBytes(bytes.length, frame);
      for (const scale of [8, 4]) {
        const heap = decoderHeap(bytes, scale);
        worstMargin = Math.min(worstMargin, estimate - heap);
        rows.push(
          `| ${label} ${w} × ${h} | ${sub} | ${progressive ? "progressive" : "baseline"} | ${(bytes.length / MB).toFixed(2)} | ${scale}/8 | ${(heap / MB).toFixed(2)} | ${(estimate / MB).toFixed(2)} | ${((estimate - heap) / MB).toFixed(2)} | ${estimate > MAX_DECODE_HEAP_BYTES ? "refused" : "decoded"} |`,
        );
        console.log(rows.at(-1));
      }
    }
  }
}

writeSection(
  "fit-decoder-heap",
  `## JPEG decoder heap: measured against the estimate (\`npx node bench/fit/decoder-heap.mjs\`)

${today()} · ${machine()}

The decoder's WASM memory after decoding every row (fresh instance per decode, so this is the peak), next to
\`jpegDecodeBytes\` (src/media/jpeg-decode-heap.ts: file + 1 MiB + 96 bytes per column + for progressive files the
coefficient buffer computed from the frame's sampling factors), which fit-image.ts compares with
\`MAX_DECODE_HEAP_BYTES\` (48 MiB) before decoding. sharp writes the files (quality 92).

| image | subsampling | mode | file MiB | scale | measured heap MiB | estimate MiB | margin MiB | fit-image |
|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}

Smallest margin (estimate − measured): **${(worstMargin / MB).toFixed(2)} MiB** (${worstMargin >= 0 ? "the estimate is an upper bound in every case; 0 where the heap is the module's initial 2 MiB" : "UNDER-ESTIMATE: fix jpeg-decode-heap.ts"}).
`,
);
