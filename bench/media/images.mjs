// Test images for the transcode benchmark, made with sharp from raw pixels (deterministic).
import sharp from "sharp";

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

/** Photo-like: smooth gradients and low-frequency shapes with mild sensor-like noise. */
export function photoLike(width, height, seed = 1) {
  const rand = rng(seed);
  const px = Buffer.alloc(width * height * 3);
  const blobs = Array.from({ length: 12 }, () => ({
    x: rand() * width,
    y: rand() * height,
    r: (0.1 + rand() * 0.3) * Math.min(width, height),
    c: [rand() * 255, rand() * 255, rand() * 255],
  }));
  let i = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let r = 90 + 80 * Math.sin(x / 300) * Math.cos(y / 410);
      let g = 110 + 60 * Math.sin((x + y) / 520);
      let b = 140 + 70 * Math.cos(y / 260);
      for (const blob of blobs) {
        const d = Math.hypot(x - blob.x, y - blob.y) / blob.r;
        if (d < 1) {
          const w = (1 - d * d) * 0.6;
          r += (blob.c[0] - r) * w;
          g += (blob.c[1] - g) * w;
          b += (blob.c[2] - b) * w;
        }
      }
      // fine texture + noise
      const t = 6 * Math.sin(x * 0.9) * Math.sin(y * 0.7);
      const n = (rand() - 0.5) * 6;
      px[i++] = Math.max(0, Math.min(255, r + t + n));
      px[i++] = Math.max(0, Math.min(255, g + t + n));
      px[i++] = Math.max(0, Math.min(255, b + t + n));
    }
  }
  return px;
}

/** Uniform random noise: the worst case for both PNG and JPEG. */
export function noisy(width, height, seed = 7) {
  const rand = rng(seed);
  const px = Buffer.alloc(width * height * 3);
  for (let i = 0; i < px.length; i++) px[i] = (rand() * 256) | 0;
  return px;
}

export async function png(raw, width, height) {
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png({ compressionLevel: 6 })
    .toBuffer();
}
