/**
 * Downscaling and orientation on RowSources (rows of packed RGB), for image fitting (fit-image.ts).
 *
 * `scaleRows` is an area average (box filter with fractional edges): each target pixel is the mean of the source
 * area it covers, which is what a downscale should do (no aliasing, no ringing) and needs only one accumulator row:
 * source rows are read one at a time, so a downscale holds two target rows, never the image.
 */
import type { RowSource } from "./transcode";

/** For each source index: the first target index it falls in, and its weight there and in the next one. */
function taps(source: number, target: number) {
  const scale = source / target; // ≥ 1: source pixels per target pixel
  const first = new Int32Array(source);
  const w0 = new Float32Array(source);
  const w1 = new Float32Array(source);
  for (let x = 0; x < source; x++) {
    const j = Math.min(target - 1, Math.floor(x / scale));
    const boundary = (j + 1) * scale; // where target pixel j ends, in source coordinates
    first[x] = j;
    if (boundary < x + 1 && j + 1 < target) {
      w0[x] = (boundary - x) / scale;
      w1[x] = (x + 1 - boundary) / scale;
    } else {
      w0[x] = 1 / scale;
    }
  }
  return { first, w0, w1 };
}

/** `source` reduced to `width` × `height` (each at most the source's) by area averaging. */
export function scaleRows(source: RowSource, width: number, height: number): RowSource {
  const sw = source.width;
  const sh = source.height;
  if (width === sw && height === sh) return source;
  if (width > sw || height > sh || width < 1 || height < 1) throw new Error("scaleRows only reduces.");
  const xt = taps(sw, width);
  const yt = taps(sh, height);
  const line = new Uint8Array(sw * 3);
  const h = new Float32Array(width * 3);
  // acc[i & 1] accumulates target row i; a source row touches at most two consecutive target rows.
  const acc = [new Float32Array(width * 3), new Float32Array(width * 3)];
  let sy = 0; // next source row to read
  let ty = 0; // next target row to hand out

  async function addSourceRow(): Promise<void> {
    await source.readRows(1, line);
    h.fill(0);
    const { first, w0, w1 } = xt;
    for (let x = 0, s = 0; x < sw; x++, s += 3) {
      const d = (first[x] as number) * 3;
      const a = w0[x] as number;
      const r = line[s] as number;
      const g = line[s + 1] as number;
      const b = line[s + 2] as number;
      h[d] = (h[d] as number) + r * a;
      h[d + 1] = (h[d + 1] as number) + g * a;
      h[d + 2] = (h[d + 2] as number) + b * a;
      const c = w1[x] as number;
      if (c > 0) {
        h[d + 3] = (h[d + 3] as number) + r * c;
        h[d + 4] = (h[d + 4] as number) + g * c;
        h[d + 5] = (h[d + 5] as number) + b * c;
      }
    }
    const i = yt.first[sy] as number;
    const v0 = yt.w0[sy] as number;
    const v1 = yt.w1[sy] as number;
    const a0 = acc[i & 1] as Float32Array;
    for (let k = 0; k < h.length; k++) a0[k] = (a0[k] as number) + (h[k] as number) * v0;
    if (v1 > 0) {
      const a1 = acc[(i + 1) & 1] as Float32Array;
      for (let k = 0; k < h.length; k++) a1[k] = (a1[k] as number) + (h[k] as number) * v1;
    }
    sy++;
  }

  return {
    width,
    height,
    async readRows(rows, out) {
      for (let r = 0; r < rows; r++, ty++) {
        // Target row ty is complete once every source row overlapping it has been added.
        const needed = ty === height - 1 ? sh : Math.min(sh, Math.ceil(((ty + 1) * sh) / height - 1e-9));
        while (sy < needed) await addSourceRow();
        const a = acc[ty & 1] as Float32Array;
        const o = out.subarray(r * width * 3, (r + 1) * width * 3);
        for (let k = 0; k < a.length; k++) {
          const v = (a[k] as number) + 0.5;
          o[k] = Math.min(255, v); // sums of non-negative samples: never below 0.5
          a[k] = 0;
        }
      }
    },
  };
}

/** A RowSource over packed pixels of 1 (grey) or 3 (RGB) bytes each. */
export function packedRows(pixels: Uint8Array, width: number, height: number, channels: 1 | 3): RowSource {
  let y = 0;
  return {
    width,
    height,
    async readRows(rows, out) {
      if (channels === 3) out.set(pixels.subarray(y * width * 3, (y + rows) * width * 3));
      else {
        const from = y * width;
        for (let i = 0, o = 0; i < rows * width; i++, o += 3) {
          const g = pixels[from + i] as number;
          out[o] = g;
          out[o + 1] = g;
          out[o + 2] = g;
        }
      }
      y += rows;
    },
  };
}

/** Every row of `source`, as one buffer of packed RGB. */
export async function readAll(source: RowSource): Promise<Uint8Array> {
  const out = new Uint8Array(source.width * source.height * 3);
  await source.readRows(source.height, out);
  return out;
}

/**
 * `pixels` (packed RGB, `w` × `h`, stored orientation) as a viewer shows it under EXIF `orientation` (1–8):
 * mirrored and/or turned, width and height swapped for 5–8. Rows are made as they are read, so the turned image
 * costs no second buffer.
 */
export function orientedRows(pixels: Uint8Array, w: number, h: number, orientation: number): RowSource {
  if (orientation <= 1 || orientation > 8) return packedRows(pixels, w, h, 3);
  const swap = orientation >= 5;
  const ow = swap ? h : w;
  const oh = swap ? w : h;
  // Upright pixel (X, Y) comes from stored pixel (x, y) = (x0 + X·dx + Y·ex, y0 + X·dy + Y·ey).
  let x0 = 0;
  let y0 = 0;
  let dx = 0;
  let dy = 0;
  let ex = 0;
  let ey = 0;
  switch (orientation) {
    case 2: // mirrored
      [x0, dx, ey] = [w - 1, -1, 1];
      break;
    case 3: // turned 180°
      [x0, y0, dx, ey] = [w - 1, h - 1, -1, -1];
      break;
    case 4: // mirrored vertically
      [y0, dx, ey] = [h - 1, 1, -1];
      break;
    case 5: // transposed
      [dy, ex] = [1, 1];
      break;
    case 6: // turned 90° clockwise to view
      [y0, dy, ex] = [h - 1, -1, 1];
      break;
    case 7: // transversed
      [x0, y0, dy, ex] = [w - 1, h - 1, -1, -1];
      break;
    default: // 8: turned 90° counter-clockwise to view
      [x0, dy, ex] = [w - 1, 1, -1];
  }
  const step = (dy * w + dx) * 3; // from upright X to X + 1, in the stored buffer
  let Y = 0;
  return {
    width: ow,
    height: oh,
    async readRows(rows, out) {
      for (let r = 0; r < rows; r++, Y++) {
        let s = ((y0 + Y * ey) * w + (x0 + Y * ex)) * 3;
        for (let X = 0, d = r * ow * 3; X < ow; X++, d += 3, s += step) {
          out[d] = pixels[s] as number;
          out[d + 1] = pixels[s + 1] as number;
          out[d + 2] = pixels[s + 2] as number;
        }
      }
    },
  };
}

/** Reads all of `source` and returns it as a viewer shows it under EXIF `orientation` (see orientedRows). */
export async function orientRows(source: RowSource, orientation: number): Promise<RowSource> {
  if (orientation <= 1 || orientation > 8) return source;
  return orientedRows(await readAll(source), source.width, source.height, orientation);
}
