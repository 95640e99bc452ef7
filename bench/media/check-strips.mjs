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
  // PNG flavours through the row decoder: palette (+ transparency), grey, grey+alpha, 16-bit, RGBA, interlaced.
  const w = 600;
  const h = 400;
  const base = sharp(photoLike(w, h, 5), { raw: { width: w, height: h, channels: 3 } });
  const flavours = {
    palette: base.clone().png({ palette: true, colours: 64 }),
    grey: base.clone().greyscale().png(),
    "grey 1-bit": base.clone().greyscale().threshold(128).png({ palette: true, colours: 2 }),
    "grey+alpha": base.clone().greyscale().ensureAlpha(0.5).png(),
    "rgb 16-bit": base.clone().toColourspace("rgb16").png(),
    rgba: base.clone().ensureAlpha(0.7).png(),
    interlaced: base.clone().png({ progressive: true }),
  };
  for (const [name, pipeline] of Object.entries(flavours)) {
    const input = await pipeline.toBuffer();
    const res = await fetch(`${worker.base}/t?return=jpeg&options=%7B%7D`, { method: "POST", body: input });
    if (!res.ok) throw new Error(`${name}: ${res.status} ${await res.text()}`);
    const ours = await sharp(Buffer.from(await res.arrayBuffer()))
      .raw()
      .toBuffer({ resolveWithObject: true });
    // Reference: sharp flattens onto white and encodes with libjpeg-turbo at quality 100, 4:2:0.
    const ref = await sharp(input)
      .flatten({ background: "#ffffff" })
      .toColourspace("srgb")
      .jpeg({ quality: 100, chromaSubsampling: "4:2:0" })
      .toBuffer()
      .then((b) => sharp(b).raw().toBuffer({ resolveWithObject: true }));
    const d = diff(ours.data, ref.data);
    const ok = ours.info.width === w && ours.info.height === h && d.psnr > 38;
    if (!ok) failed++;
    console.log(
      `${name}: vs sharp flatten+encode max |Δ| ${d.max}, PSNR ${d.psnr.toFixed(1)} dB ${ok ? "OK" : "FAIL"}`,
    );
  }
} finally {
  await worker.stop();
}
process.exit(failed ? 1 : 0);
