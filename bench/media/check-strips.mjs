// Correctness check for strip encoding (run: npm exec -- node bench/media/check-strips.mjs): the stitched JPEG of the
// production path (libjpeg-turbo strips) must decode, with libjpeg via sharp, to the image size and to the same
// pixels as sharp's own one-piece libjpeg-turbo encode at quality 100, 4:2:0 (|Δ| ≤ 1), and be close to the source.
import path from "node:path";
import sharp from "sharp";
import { startWorker } from "../lib/worker.mjs";
import { photoLike, png } from "./images.mjs";

const PORT = Number(process.env.BENCH_PORT ?? 8788);
const worker = await startWorker({
  config: path.join(import.meta.dirname, "worker/wrangler.jsonc"),
  port: PORT,
  healthPath: "/health",
});

function diff(a, b) {
  let max = 0;
  let sum = 0;
  let sq = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    sum += d;
    sq += d * d;
    if (d > max) max = d;
  }
  const mse = sq / a.length;
  return { max, mean: sum / a.length, psnr: mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse) };
}

let failed = 0;
try {
  for (const [w, h] of [
    [1000, 1000],
    [1237, 811],
    [4000, 3000],
    [700, 2500],
  ]) {
    const raw = photoLike(w, h, w + h);
    const input = await png(raw, w, h);
    const get = async (options) => {
      const res = await fetch(`${worker.base}/t?return=jpeg&options=${encodeURIComponent(JSON.stringify(options))}`, {
        method: "POST",
        body: input,
      });
      if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
      return Buffer.from(await res.arrayBuffer());
    };
    const decode = async (jpeg) => sharp(jpeg).raw().toBuffer({ resolveWithObject: true });
    const turboJpeg = await get({});
    const turbo = await decode(turboJpeg);
    const reference = await decode(await sharp(input).jpeg({ quality: 100, chromaSubsampling: "4:2:0" }).toBuffer());
    const d1 = diff(turbo.data, reference.data);
    const d2 = diff(turbo.data, raw);
    const ok = turbo.info.width === w && turbo.info.height === h && d1.max <= 1 && d2.psnr > 40;
    if (!ok) failed++;
    console.log(
      `${w}×${h}: ${turboJpeg.length} B; vs sharp one-piece encode max |Δ| ${d1.max}, mean ${d1.mean.toFixed(4)}; vs source PSNR ${d2.psnr.toFixed(1)} dB ${ok ? "OK" : "FAIL"}`,
    );
  }
} finally {
  await worker.stop();
}
process.exit(failed ? 1 : 0);
