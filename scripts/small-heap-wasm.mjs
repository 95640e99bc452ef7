// Writes a copy of @cornerstonejs/codec-libjpeg-turbo-8bit's encoder WebAssembly module whose memory starts at
// 2 MiB instead of the build's 50 MiB (INITIAL_MEMORY). The module grows its memory on demand (ALLOW_MEMORY_GROWTH:
// the glue's emscripten_resize_heap), so only the starting size changes; its static data and stack end below
// 0.7 MiB. Why: a WebAssembly memory never shrinks, and a fixed 50 MiB for a strip encoder that needs ≈ 6 MiB is
// 40% of a Worker isolate's 128 MB (bench/RESULTS.md, "Hostile images"). The JPEG decoder is this project's own
// build (scripts/jpeg-decoder/build.sh), which starts at 2 MiB too.
//
// Run after upgrading the package: node scripts/small-heap-wasm.mjs (the outputs are committed under src/media/wasm).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.join(import.meta.dirname, "..");
const dist = path.join(root, "node_modules/@cornerstonejs/codec-libjpeg-turbo-8bit/dist");
const START_PAGES = 32; // × 64 KiB = 2 MiB

const files = [["libjpegturbowasm.wasm", "libjpeg-turbo-enc.wasm"]];

function leb(bytes, at) {
  let value = 0;
  let shift = 0;
  let b;
  do {
    b = bytes[at++];
    value |= (b & 127) << shift;
    shift += 7;
  } while (b & 128);
  return [value, at];
}

for (const [from, to] of files) {
  const wasm = new Uint8Array(readFileSync(path.join(dist, from)));
  let at = 8;
  let patched = false;
  while (at < wasm.length) {
    const id = wasm[at];
    const [size, body] = leb(wasm, at + 1);
    if (id === 5) {
      // memory section: count, then limits {flags, min, max}
      const [count, limits] = leb(wasm, body);
      if (count !== 1 || wasm[limits] !== 1) throw new Error(`${from}: unexpected memory section`);
      const [min, minEnd] = leb(wasm, limits + 1);
      const width = minEnd - (limits + 1);
      if (width !== 2) throw new Error(`${from}: initial memory encoded in ${width} bytes, expected 2`);
      // Same byte length (a padded LEB128 is valid), so no section size changes.
      wasm[limits + 1] = 0x80 | (START_PAGES & 127);
      wasm[limits + 2] = START_PAGES >> 7;
      console.log(`${from}: initial memory ${min} → ${START_PAGES} pages`);
      patched = true;
    }
    at = body + size;
  }
  if (!patched) throw new Error(`${from}: no memory section`);
  new WebAssembly.Module(wasm); // still valid
  writeFileSync(path.join(root, "src/media/wasm", to), wasm);
}
