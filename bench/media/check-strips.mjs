// Correctness check for strip encoding: the stitched JPEG must decode (with libjpeg via sharp) to the same pixels
// as a whole-image encode with the same settings. Run: node bench/media/check-strips.mjs
import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { startWorker } from "../lib/worker.mjs";
import { photoLike, png } from "./images.mjs";

const PORT = Number(process.env.BENCH_PORT ?? 8788);
const worker = await startWorker({ config: path.join(import.meta.dirname, "worker/wrangler.jsonc"), port: PORT, healthPath: "/health" });
let failed = 0;
try {
  for (const [w, h] of [
    [1000, 1000],
    [1237, 811],
    [4000, 3000],
    [700, 2500],
  ]) {
    const input = await png(photoLike(w, h, w + h), w, h);
    const get = async (options) => {
      const res = await fetch(`${worker.base}/t?return=jpeg&options=${encodeURIComponent(JSON.stringify(options))}`, {
        method: "POST",
        body: input,
      });
      if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
      return Buffer.from(await res.arrayBuffer());
    };
    const strips = await get({});
    const whole = await get({ strips: false });
    const a = await sharp(strips).raw().toBuffer({ resolveWithObject: true });
    const b = await sharp(whole).raw().toBuffer({ resolveWithObject: true });
    let maxDiff = 0;
    let sum = 0;
    for (let i = 0; i < a.data.length; i++) {
      const d = Math.abs(a.data[i] - b.data[i]);
      sum += d;
      if (d > maxDiff) maxDiff = d;
    }
    const ok = a.info.width === w && a.info.height === h && maxDiff <= 2;
    if (!ok) failed++;
    console.log(
      `${w}×${h}: strips ${strips.length} B, whole ${whole.length} B, decoded ${a.info.width}×${a.info.height}, max |Δ| ${maxDiff}, mean |Δ| ${(sum / a.data.length).toFixed(4)} ${ok ? "OK" : "FAIL"}`,
    );
  }
} finally {
  await worker.stop();
}
void readFileSync;
void tmpdir;
process.exit(failed ? 1 : 0);
