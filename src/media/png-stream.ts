/**
 * Row-by-row PNG decoding for the transcoder: the IDAT stream is inflated by the runtime's native
 * DecompressionStream and unfiltered one row at a time, so memory is the compressed file plus two rows — never the
 * whole decoded image (which @jsquash/png's WASM decoder needs twice: in its heap and as the returned ImageData).
 * Rows come out as packed RGB with any alpha composited onto white.
 *
 * Interlaced (Adam7) PNGs are decoded in bands: each band of output rows (at most BAND_BYTES of RGB) is filled by
 * one pass over the whole compressed stream, keeping the pixels of every Adam7 pass that fall inside the band. Memory
 * stays one band whatever the image size; time grows with the number of bands (one native inflate + unfilter each).
 */
export class PngFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PngFormatError";
  }
}

export interface PngHeader {
  width: number;
  height: number;
  bitDepth: number;
  colorType: number;
}

interface Parsed extends PngHeader {
  interlaced: boolean;
  palette: Uint8Array | null;
  alphaTable: Uint8Array | null;
  idat: Uint8Array[];
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
const VALID_DEPTHS: Record<number, number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

function parse(bytes: Uint8Array): Parsed {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let i = 8;
  let header: PngHeader | null = null;
  let interlaced = false;
  let palette: Uint8Array | null = null;
  let alphaTable: Uint8Array | null = null;
  const idat: Uint8Array[] = [];
  while (i + 8 <= bytes.length) {
    const len = dv.getUint32(i);
    const type = String.fromCharCode(...bytes.subarray(i + 4, i + 8));
    const data = bytes.subarray(i + 8, i + 8 + len);
    if (data.length !== len) throw new PngFormatError("Truncated chunk.");
    if (type === "IHDR") {
      if (len < 13) throw new PngFormatError("Bad IHDR.");
      header = {
        width: dv.getUint32(i + 8),
        height: dv.getUint32(i + 12),
        bitDepth: data[8] as number,
        colorType: data[9] as number,
      };
      interlaced = data[12] === 1;
      if (!VALID_DEPTHS[header.colorType]?.includes(header.bitDepth)) throw new PngFormatError("Unsupported format.");
    } else if (type === "PLTE") palette = data;
    else if (type === "tRNS") alphaTable = data;
    else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    i += 12 + len;
  }
  if (!header || header.width === 0 || header.height === 0) throw new PngFormatError("No image header.");
  if (idat.length === 0) throw new PngFormatError("No image data.");
  if (header.colorType === 3 && !palette) throw new PngFormatError("No palette.");
  return { ...header, interlaced, palette, alphaTable, idat };
}

/** Reads exactly `n` bytes from an inflate stream into `into`; false when the stream ends first. */
async function readExactly(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  state: { rest: Uint8Array },
  into: Uint8Array,
): Promise<boolean> {
  let at = 0;
  while (at < into.length) {
    if (state.rest.length === 0) {
      const r = await reader.read();
      if (r.done) return false;
      state.rest = r.value;
      continue;
    }
    const n = Math.min(into.length - at, state.rest.length);
    into.set(state.rest.subarray(0, n), at);
    state.rest = state.rest.subarray(n);
    at += n;
  }
  return true;
}

function unfilter(filter: number, line: Uint8Array, prev: Uint8Array, bpp: number): void {
  const n = line.length;
  switch (filter) {
    case 0:
      return;
    case 1:
      for (let i = bpp; i < n; i++) line[i] = ((line[i] as number) + (line[i - bpp] as number)) & 255;
      return;
    case 2:
      for (let i = 0; i < n; i++) line[i] = ((line[i] as number) + (prev[i] as number)) & 255;
      return;
    case 3:
      for (let i = 0; i < bpp; i++) line[i] = ((line[i] as number) + ((prev[i] as number) >> 1)) & 255;
      for (let i = bpp; i < n; i++)
        line[i] = ((line[i] as number) + (((line[i - bpp] as number) + (prev[i] as number)) >> 1)) & 255;
      return;
    case 4:
      // The first pixel has no left neighbours (a = c = 0), so its predictor is always b.
      for (let i = 0; i < bpp; i++) line[i] = ((line[i] as number) + (prev[i] as number)) & 255;
      for (let i = bpp; i < n; i++) {
        const a = line[i - bpp] as number;
        const b = prev[i] as number;
        const c = prev[i - bpp] as number;
        // p = a + b − c; |p − a| = |b − c|, |p − b| = |a − c|, |p − c| = |a + b − 2c|
        let pa = b - c;
        let pb = a - c;
        let pc = pa + pb;
        pa = pa < 0 ? -pa : pa;
        pb = pb < 0 ? -pb : pb;
        pc = pc < 0 ? -pc : pc;
        line[i] = ((line[i] as number) + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 255;
      }
      return;
    default:
      throw new PngFormatError("Bad filter type.");
  }
}

/** Composites one colour sample with alpha `a` onto white, rounded to the nearest integer. */
export const blend = (c: number, a: number) => ((c * a + 255 * (255 - a) + 127) / 255) | 0;

type RowConverter = (line: Uint8Array, out: Uint8Array) => void;

/**
 * Picks, once per image, the function that turns one unfiltered scanline into packed RGB on white. The two layouts
 * nearly every PNG uses get tight loops of their own — 8-bit RGB is copied as it is, RGBA (8 or 16 bits) is
 * flattened in one pass; the rest share `toRgb`.
 */
function rowConverter(p: Parsed, width: number): RowConverter {
  const { bitDepth, colorType } = p;
  if (bitDepth === 8 && colorType === 2) return (line, out) => out.set(line);
  if (colorType === 6) {
    const step = bitDepth === 16 ? 2 : 1; // 16-bit samples: keep the high byte
    const px = 4 * step;
    return (line, out) => {
      for (let s = 0, o = 0, end = width * px; s < end; s += px, o += 3) {
        const a = line[s + 3 * step] as number;
        if (a === 255) {
          out[o] = line[s] as number;
          out[o + 1] = line[s + step] as number;
          out[o + 2] = line[s + 2 * step] as number;
        } else {
          out[o] = blend(line[s] as number, a);
          out[o + 1] = blend(line[s + step] as number, a);
          out[o + 2] = blend(line[s + 2 * step] as number, a);
        }
      }
    };
  }
  return (line, out) => toRgb(p, width, line, out);
}

/** Converts one unfiltered scanline of the other layouts (grey, grey + alpha, palette, 16-bit RGB) to packed RGB. */
function toRgb(p: Parsed, width: number, line: Uint8Array, out: Uint8Array): void {
  const { bitDepth, colorType } = p;
  const step = bitDepth === 16 ? 2 : 1; // 16-bit samples: keep the high byte
  if (colorType === 3 || (colorType === 0 && bitDepth < 8)) {
    const perByte = 8 / bitDepth;
    const mask = (1 << bitDepth) - 1;
    const scale = 255 / mask;
    for (let x = 0, o = 0; x < width; x++, o += 3) {
      const byte = line[(x / perByte) | 0] as number;
      const v = (byte >> (8 - bitDepth * ((x % perByte) + 1))) & mask;
      if (colorType === 0) {
        const g = (v * scale) | 0;
        out[o] = g;
        out[o + 1] = g;
        out[o + 2] = g;
      } else {
        const pal = p.palette as Uint8Array;
        const a = p.alphaTable && v < p.alphaTable.length ? (p.alphaTable[v] as number) : 255;
        const r = (pal[v * 3] as number) ?? 0;
        const g = (pal[v * 3 + 1] as number) ?? 0;
        const b = (pal[v * 3 + 2] as number) ?? 0;
        out[o] = a === 255 ? r : blend(r, a);
        out[o + 1] = a === 255 ? g : blend(g, a);
        out[o + 2] = a === 255 ? b : blend(b, a);
      }
    }
    return;
  }
  const channels = CHANNELS[colorType] as number;
  const px = channels * step;
  for (let x = 0, s = 0, o = 0; x < width; x++, s += px, o += 3) {
    switch (colorType) {
      case 0: {
        const g = line[s] as number;
        out[o] = g;
        out[o + 1] = g;
        out[o + 2] = g;
        break;
      }
      case 2:
        out[o] = line[s] as number;
        out[o + 1] = line[s + step] as number;
        out[o + 2] = line[s + 2 * step] as number;
        break;
      default: {
        // 4: grey + alpha
        const a = line[s + step] as number;
        const g = a === 255 ? (line[s] as number) : blend(line[s] as number, a);
        out[o] = g;
        out[o + 1] = g;
        out[o + 2] = g;
      }
    }
  }
}

export interface PngRowReader extends PngHeader {
  interlaced: boolean;
  /** Fills `out` with the next `rows` rows as packed RGB (3 × width bytes each). */
  readRows(rows: number, out: Uint8Array): Promise<void>;
  close(): Promise<void>;
}

/** Largest band of RGB rows an interlaced PNG is assembled in (see the file comment). */
export const BAND_BYTES = 8 * 1024 * 1024;

// Adam7: for each of the 7 passes, first column, first row, column step, row step.
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** Sequential reader of unfiltered scanlines of one (sub)image of `width` pixels, over a shared inflate stream. */
class Scanlines {
  private line: Uint8Array;
  private prev: Uint8Array;
  constructor(
    private readonly input: { reader: ReadableStreamDefaultReader<Uint8Array>; state: { rest: Uint8Array } },
    stride: number,
    private readonly bpp: number,
  ) {
    this.line = new Uint8Array(1 + stride);
    this.prev = new Uint8Array(1 + stride);
  }
  /** The next scanline's pixel bytes (valid until the next call). */
  async next(): Promise<Uint8Array> {
    let ok: boolean;
    try {
      ok = await readExactly(this.input.reader, this.input.state, this.line);
    } catch {
      throw new PngFormatError("Corrupt image data.");
    }
    if (!ok) throw new PngFormatError("Truncated image data.");
    const data = this.line.subarray(1);
    unfilter(this.line[0] as number, data, this.prev.subarray(1), this.bpp);
    [this.line, this.prev] = [this.prev, this.line];
    return data;
  }
}

/**
 * Compressed bytes handed to the inflater at a time. Deflate expands at most ≈1,032:1 and the native inflater
 * turns each input chunk into output all at once, so this bounds one burst at ≈4 MB — fed a whole 61 KB IDAT, it
 * produced 64 MB in one go (bench/RESULTS.md, "Hostile images"). The input is pulled only as rows are read.
 */
export const INFLATE_SLICE_BYTES = 4096;

function inflate(p: Parsed) {
  // Fed by hand rather than piped, so every promise of the inflater's writable is ours to handle: it refuses to
  // close on a stream that ends early (a truncated PNG) and errors when the reader is cancelled mid-file, and a
  // pipe left those rejections unhandled (an uncaught exception in the isolate on every such file). Each write
  // waits until the inflater has taken the slice (backpressure: input is fed only as rows are read).
  const inflater = new DecompressionStream("deflate");
  const writer = inflater.writable.getWriter();
  writer.closed.catch(() => {});
  (async () => {
    for (const data of p.idat)
      for (let offset = 0; offset < data.length; offset += INFLATE_SLICE_BYTES) {
        await writer.ready;
        await writer.write(data.slice(offset, offset + INFLATE_SLICE_BYTES));
      }
    await writer.close();
  })().catch(() => {}); // the reader sees the same failure (or was cancelled)
  return { reader: inflater.readable.getReader(), state: { rest: new Uint8Array(0) } };
}

/** A row reader over a complete PNG file (interlaced or not). Throws PngFormatError on bad data. */
export function openPng(bytes: Uint8Array, bandBytes = BAND_BYTES): PngRowReader {
  const p = parse(bytes);
  const bitsPerPixel = (CHANNELS[p.colorType] as number) * p.bitDepth;
  const strideOf = (w: number) => Math.ceil((w * bitsPerPixel) / 8);
  const bpp = Math.max(1, bitsPerPixel >> 3);
  const header = { width: p.width, height: p.height, bitDepth: p.bitDepth, colorType: p.colorType };
  const rowBytes = p.width * 3;
  let input = inflate(p);
  let row = 0;

  if (!p.interlaced) {
    const lines = new Scanlines(input, strideOf(p.width), bpp);
    const convert = rowConverter(p, p.width);
    return {
      ...header,
      interlaced: false,
      async readRows(rows, out) {
        for (let r = 0; r < rows; r++, row++) {
          if (row >= p.height) throw new PngFormatError("Read past the last row.");
          convert(await lines.next(), out.subarray(r * rowBytes, (r + 1) * rowBytes));
        }
      },
      async close() {
        await input.reader.cancel().catch(() => {});
      },
    };
  }

  const bandRows = Math.max(1, Math.min(p.height, Math.floor(bandBytes / rowBytes)));
  const band = new Uint8Array(bandRows * rowBytes);
  let bandStart = 0;
  let bandEnd = 0; // rows [bandStart, bandEnd) are in `band`

  /** One pass over the whole stream: keeps the pixels of rows [from, to) of every Adam7 pass. */
  async function fillBand(from: number, to: number): Promise<void> {
    if (from > 0) {
      await input.reader.cancel().catch(() => {});
      input = inflate(p);
    }
    const passRgb = new Uint8Array(rowBytes);
    for (const [pass, [x0, y0, dx, dy]] of ADAM7.entries()) {
      const w = Math.ceil((p.width - x0) / dx);
      const h = Math.ceil((p.height - y0) / dy);
      if (w <= 0 || h <= 0) continue; // an empty pass has no scanlines at all
      // Rows of this pass at or after `to` are not needed; earlier ones must be read to unfilter the next.
      const last = Math.min(h, Math.ceil((to - y0) / dy));
      const lines = new Scanlines(input, strideOf(w), bpp);
      const convert = rowConverter(p, w);
      for (let r = 0; r < h; r++) {
        if (r >= last && pass === ADAM7.length - 1) break; // nothing after this is needed
        const line = await lines.next();
        const y = y0 + r * dy;
        if (y < from || r >= last) continue;
        convert(line, passRgb);
        const base = (y - from) * rowBytes;
        for (let i = 0, x = x0; i < w; i++, x += dx) {
          const d = base + x * 3;
          band[d] = passRgb[i * 3] as number;
          band[d + 1] = passRgb[i * 3 + 1] as number;
          band[d + 2] = passRgb[i * 3 + 2] as number;
        }
      }
    }
    bandStart = from;
    bandEnd = to;
  }

  return {
    ...header,
    interlaced: true,
    async readRows(rows, out) {
      for (let r = 0; r < rows; r++, row++) {
        if (row >= p.height) throw new PngFormatError("Read past the last row.");
        if (row >= bandEnd) await fillBand(row, Math.min(p.height, row + bandRows));
        out.set(band.subarray((row - bandStart) * rowBytes, (row - bandStart + 1) * rowBytes), r * rowBytes);
      }
    },
    async close() {
      await input.reader.cancel().catch(() => {});
    },
  };
}
