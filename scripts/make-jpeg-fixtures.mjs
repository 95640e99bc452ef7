// Writes the JPEG fixtures in test/media/fixtures/jpeg/ (committed; tests never run sharp): real encoder output from
// sharp (libjpeg-turbo inside libvips; devDependency) plus hand-malformed copies of one of them. Run once:
// `node scripts/make-jpeg-fixtures.mjs`; each file and how it was made is listed in test/media/fixtures/jpeg/README.md.
import { writeFileSync } from "node:fs";
import path from "node:path";
import sharp from "sharp";

const out = path.resolve(import.meta.dirname, "../test/media/fixtures/jpeg");

/** A smooth colour gradient (so large frames stay small files): raw RGB, `width` × `height`. */
function gradient(width, height) {
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0, i = 0; y < height; y++)
    for (let x = 0; x < width; x++, i += 3) {
      raw[i] = Math.floor((255 * x) / width);
      raw[i + 1] = Math.floor((255 * y) / height);
      raw[i + 2] = 128;
    }
  return sharp(raw, { raw: { width, height, channels: 3 } });
}

const made = {};
async function make(name, width, height, jpeg) {
  const bytes = await gradient(width, height).jpeg(jpeg).toBuffer();
  writeFileSync(path.join(out, name), bytes);
  made[name] = bytes;
  console.log(`${name}: sharp(gradient ${width}×${height}).jpeg(${JSON.stringify(jpeg)}) → ${bytes.length} bytes`);
}

await make("baseline.jpg", 320, 240, { quality: 80 });
await make("progressive.jpg", 320, 240, { quality: 80, progressive: true });
// 12 MP 4:2:0 progressive: 38 MiB of coefficients, within the 48 MiB decode limit (fitted at publish).
await make("progressive-12mp.jpg", 4032, 3024, { quality: 25, progressive: true });
// 8.4 MP 4:4:4 progressive (as some cameras and editors export): 48.3 MiB of coefficients alone (6 bytes a pixel)
// > 48 MiB: cannot be decoded at the edge. (A 16 MP 4:2:0 one small enough to commit stays at 47.1 MiB.)
await make("progressive-444.jpg", 2900, 2900, { quality: 10, progressive: true, chromaSubsampling: "4:4:4" });

const u16 = (b, i) => (b[i] << 8) | b[i + 1];
function derive(name, from, edit, how) {
  const b = Buffer.from(made[from]);
  const result = edit(b);
  writeFileSync(path.join(out, name), result);
  console.log(`${name}: ${how} → ${result.length} bytes`);
}
const sofAt = (b) => {
  for (let i = 2; i < b.length; ) {
    if (b[i + 1] === 0xc0 || b[i + 1] === 0xc2) return i;
    i += 2 + u16(b, i + 2);
  }
  throw new Error("no SOF");
};
derive(
  "truncated.jpg",
  "baseline.jpg",
  (b) => b.subarray(0, Math.floor(b.length * 0.6)),
  "baseline.jpg cut at 60 % (mid-scan, no EOI)",
);
derive(
  "lying-size.jpg",
  "baseline.jpg",
  (b) => {
    const sof = sofAt(b);
    b.writeUInt16BE(20000, sof + 5); // height
    b.writeUInt16BE(20000, sof + 7); // width
    return b;
  },
  "baseline.jpg with its SOF0 saying 20000×20000",
);
