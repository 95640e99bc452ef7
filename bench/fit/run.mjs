// Fitting a 12 MP phone photo for Bluesky (≤ 1,000,000 bytes, issue 16): src/media/fit-image.ts in workerd against
// sharp doing the same job (the same size rule and quality ladder, sharp's own resize) on the same images in the
// same run. Run: npm run bench -- fit
// Per image: a fresh `wrangler dev` of bench/media/worker, 1 warm-up + RUNS timed POST /fit, each alternated with
// an upload-only POST of the same body (subtracted: workerd's clock does not advance during CPU work, so the Worker
// cannot time itself); the WASM heaps the Worker reports after the runs (peaks) and workerd's peak RSS growth.
import { loadavg } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { machine, median, today, writeSection } from "../lib/results.mjs";
import { startWorker } from "../lib/worker.mjs";
import { photoLike } from "../media/images.mjs";
import { findWorkerds, hostLine, watchMemory } from "../media/proc.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PORT = Number(process.env.BENCH_PORT ?? 8790);
const CONFIG = path.join(import.meta.dirname, "../media/worker/wrangler.jsonc");
const MB = 1024 * 1024;
const SPEC = { maxBytes: 1_000_000, formats: ["image/jpeg"] }; // Bluesky's image blob limit
const LADDER = [85, 75, 65]; // fit-image.ts QUALITY_LADDER
const FIRST_GUESS_BYTES_PER_PIXEL = 0.35;

const IMAGES = [
  {
    name: "photo-like 12 MP JPEG q92 (4000×3000)",
    make: () =>
      sharp(photoLike(4000, 3000), { raw: { width: 4000, height: 3000, channels: 3 } })
        .jpeg({ quality: 92 })
        .toBuffer(),
  },
  {
    name: "photo-like 12 MP JPEG q95 (4032×3024), EXIF orientation 6",
    make: () =>
      sharp(photoLike(4032, 3024, 3), { raw: { width: 4032, height: 3024, channels: 3 } })
        .jpeg({ quality: 95 })
        .withMetadata({ orientation: 6 })
        .toBuffer(),
  },
  {
    // libjpeg holds a progressive file's coefficients whole: 35 MiB of decoder heap at 12 MP 4:2:0.
    name: "photo-like 12 MP progressive JPEG q95 4:2:0 (4032×3024), EXIF orientation 6",
    make: () =>
      sharp(photoLike(4032, 3024, 5), { raw: { width: 4032, height: 3024, channels: 3 } })
        .jpeg({ quality: 95, progressive: true })
        .withMetadata({ orientation: 6 })
        .toBuffer(),
  },
  {
    // The largest progressive 4:2:0 frame of this aspect under MAX_DECODE_HEAP_BYTES (estimate ≈ 49 MiB + file).
    name: "photo-like 16 MP progressive JPEG q95 4:2:0 (4608×3456)",
    make: () =>
      sharp(photoLike(4608, 3456, 7), { raw: { width: 4608, height: 3456, channels: 3 } })
        .jpeg({ quality: 95, progressive: true })
        .toBuffer(),
  },
];

/** fit-image.ts's algorithm with sharp doing the resize and the encode. */
async function sharpFit(input, spec) {
  const meta = await sharp(input).metadata();
  const swap = (meta.orientation ?? 1) >= 5;
  const [w0, h0] = swap ? [meta.height, meta.width] : [meta.width, meta.height];
  const scale = Math.min(1, Math.sqrt(spec.maxBytes / FIRST_GUESS_BYTES_PER_PIXEL / (w0 * h0)));
  let [w, h] = [Math.floor(w0 * scale), Math.floor(h0 * scale)];
  for (let attempt = 0; attempt < 8; ) {
    for (const quality of LADDER) {
      attempt++;
      const out = await sharp(input).rotate().resize(w, h).jpeg({ quality }).toBuffer();
      if (out.length <= spec.maxBytes) return { bytes: out.length, width: w, height: h, attempts: attempt };
      const shrink = Math.sqrt((spec.maxBytes / out.length) * 0.9);
      if (out.length > spec.maxBytes * 1.6 || quality === LADDER[LADDER.length - 1]) {
        [w, h] = [Math.floor(w * shrink), Math.floor(h * shrink)];
        break;
      }
    }
  }
  throw new Error("sharp could not fit");
}

async function sharpCase(input) {
  const times = [];
  let out;
  for (let i = 0; i <= RUNS; i++) {
    const t0 = performance.now();
    out = await sharpFit(input, SPEC);
    if (i > 0) times.push(performance.now() - t0);
  }
  return { ms: median(times), out };
}

async function workerCase(input) {
  const startLoad = load();
  const worker = await startWorker({ config: CONFIG, port: PORT, healthPath: "/health" });
  try {
    const peak = watchMemory(findWorkerds(worker.pid));
    const url = `${worker.base}/fit?mime=image/jpeg&spec=${encodeURIComponent(JSON.stringify(SPEC))}`;
    const times = [];
    const uploads = [];
    let last;
    for (let i = 0; i <= RUNS; i++) {
      let t0 = performance.now();
      await (await fetch(`${worker.base}/upload-only`, { method: "POST", body: input })).text();
      const up = performance.now() - t0;
      t0 = performance.now();
      const res = await fetch(url, { method: "POST", body: input });
      const text = await res.text();
      const ms = performance.now() - t0;
      // Refused as the API refuses it at upload (a photo the edge cannot decode): a row of its own, not a crash.
      if (res.status === 422) return { refused: JSON.parse(text).message, load: startLoad };
      if (!res.ok) throw new Error(`${res.status} ${text.slice(0, 300)}`);
      last = JSON.parse(text);
      if (i > 0) {
        times.push(ms);
        uploads.push(up);
      }
    }
    const roundTrip = median(times);
    const upload = median(uploads);
    return { roundTrip, upload, ms: roundTrip - upload, out: last, rss: peak().growthMb, load: startLoad };
  } finally {
    await worker.stop();
  }
}

const load = () => loadavg()[0].toFixed(1);

sharp.concurrency(1); // one thread, like a Worker isolate
const rows = [];
const verdicts = [];
const only = process.env.BENCH_IMAGES?.split(",").map(Number); // indexes into IMAGES, to re-run some
for (const [index, img] of IMAGES.entries()) {
  if (only && !only.includes(index)) continue;
  const input = await img.make();
  const ref = await sharpCase(input);
  console.log(`${img.name}: sharp ${ref.ms.toFixed(0)} ms`, ref.out);
  rows.push(
    `| ${img.name} | ${(input.length / MB).toFixed(1)} | sharp 0.35 (1 thread) | ${load()} | — | ${ref.ms.toFixed(0)} | 1.0× | ${ref.out.width}×${ref.out.height}, ${ref.out.bytes} B | — | — | — |`,
  );
  const r = await workerCase(input);
  if (r.refused) {
    console.log(`${img.name}: fitImage refused: ${r.refused}`);
    rows.push(
      `| ${img.name} | ${(input.length / MB).toFixed(1)} | fitImage (workerd) | ${r.load} | — | — | — | refused (422): ${r.refused} | — | — | — |`,
    );
    continue;
  }
  const heapTotal = Object.values(r.out.heap).reduce((a, b) => a + b, 0);
  const instances = Object.entries(r.out.instances ?? {})
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const detail = Object.entries(r.out.heap)
    .map(([k, v]) => `${k} ${(v / MB).toFixed(1)}`)
    .join(", ");
  const ratio = r.ms / ref.ms;
  verdicts.push({ name: img.name, ratio, heapTotal });
  console.log(`${img.name}: fitImage ${r.ms.toFixed(0)} ms`, r.out);
  rows.push(
    `| ${img.name} | ${(input.length / MB).toFixed(1)} | fitImage (workerd) | ${r.load} | ${r.roundTrip.toFixed(0)} / ${r.upload.toFixed(0)} | ${r.ms.toFixed(0)} | ${ratio.toFixed(1)}× | ${r.out.width}×${r.out.height}, ${r.out.bytes} B | ${(heapTotal / MB).toFixed(1)} (${detail}) | ${instances} | ${r.rss.toFixed(0)} |`,
  );
}
const worst = verdicts.reduce((a, b) => (b.ratio > a.ratio ? b : a));
const maxHeap = Math.max(...verdicts.map((v) => v.heapTotal));

writeSection(
  "fit",
  `## Fitting a 12 MP photo for Bluesky (\`npm run bench -- fit\`)

${today()} · ${machine()}

${hostLine()}

Budget: 1,000,000 bytes, JPEG. Both sides run the same algorithm (fit-image.ts: first size from 0.35 bytes per
pixel, quality 85 → 75 → 65, then shrink by √(budget/size × 0.9)); sharp does its own resize (lanczos3, with
JPEG shrink-on-load) and encode, in Node with one libvips thread, on the JPEG already in memory. **fit ms** for the
Worker = round trip − upload only (medians of ${RUNS} after a warm-up). The Worker decodes with this project's
libjpeg-turbo 3.2 build (scripts/jpeg-decoder): rows a few at a time, DCT-scaled to the smallest M/8 covering the
target (here 1/2), then area-averaged. WASM heap: the largest memory each codec reached; **instances**: codec
instances made over all ${RUNS + 1} fits in the one Worker (1 each = heaps reused). Peak RSS growth: workerd's
VmHWM − idle VmRSS over all ${RUNS + 1} consecutive fits (and their uploads) in that Worker. Load: \`uptime\`'s
1-minute average when the case started (other jobs share the 2 cores; sharp runs in the same conditions).

| image | MB | tool | load | round trip / upload ms | fit ms | vs sharp | result | WASM heap MB (per codec) | instances | peak RSS growth MB |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join("\n")}

Targets: time ≤ 3× sharp — worst ${worst.ratio.toFixed(1)}× (${worst.name}): **${worst.ratio <= 3 ? "met" : "not met"}**;
peak WASM heap ≤ 64 MiB — ${(maxHeap / MB).toFixed(1)} MiB: **${maxHeap <= 64 * MB ? "met" : "not met"}**.
`,
);
