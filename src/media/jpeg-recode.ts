/**
 * Re-codes the entropy-coded data of a baseline JPEG scan from the Huffman tables it was written with to the
 * standard tables of ITU T.81 Annex K, without touching a single coefficient: every (run, size) symbol is decoded
 * with the old table and written with the new code, and its extra bits are copied as they are.
 *
 * Why: mozjpeg always optimises its Huffman tables (trellis quantisation gathers statistics and rebuilds them), so
 * strips encoded separately come out with different tables. One scan can only use one table set, so before the
 * strips are stitched into one image (jpeg-strips.ts) each is re-coded to the same, complete standard tables.
 */

// Annex K.3: code-length counts (16) and symbol values.
const DC_LUMA_BITS = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
const DC_LUMA_VALS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const DC_CHROMA_BITS = [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0];
const DC_CHROMA_VALS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
const AC_LUMA_BITS = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d];
// biome-ignore format: table
const AC_LUMA_VALS = [
  0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14,
  0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09,
  0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a,
  0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64, 0x65,
  0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88,
  0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9,
  0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca,
  0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9, 0xea,
  0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
];
const AC_CHROMA_BITS = [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77];
// biome-ignore format: table
const AC_CHROMA_VALS = [
  0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22, 0x32,
  0x81, 0x08, 0x14, 0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16,
  0x24, 0x34, 0xe1, 0x25, 0xf1, 0x17, 0x18, 0x19, 0x1a, 0x26, 0x27, 0x28, 0x29, 0x2a, 0x35, 0x36, 0x37, 0x38, 0x39,
  0x3a, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64,
  0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x82, 0x83, 0x84, 0x85, 0x86,
  0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
  0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8,
  0xc9, 0xca, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8, 0xe9,
  0xea, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa,
];

interface EncodeTable {
  code: Uint16Array; // by symbol
  size: Uint8Array; // by symbol; 0 = absent
}

interface DecodeTable {
  /** 16-bit lookahead → symbol | (length << 8); 0 when no code matches. */
  lookup: Uint32Array;
}

function canonicalCodes(bits: readonly number[], vals: readonly number[]): { sym: number; code: number; len: number }[] {
  const out: { sym: number; code: number; len: number }[] = [];
  let code = 0;
  let k = 0;
  for (let len = 1; len <= 16; len++) {
    for (let i = 0; i < (bits[len - 1] as number); i++) out.push({ sym: vals[k++] as number, code: code++, len });
    code <<= 1;
  }
  return out;
}

function encodeTable(bits: readonly number[], vals: readonly number[]): EncodeTable {
  const code = new Uint16Array(256);
  const size = new Uint8Array(256);
  for (const c of canonicalCodes(bits, vals)) {
    code[c.sym] = c.code;
    size[c.sym] = c.len;
  }
  return { code, size };
}

function decodeTable(bits: readonly number[], vals: readonly number[]): DecodeTable {
  const lookup = new Uint32Array(65536);
  for (const c of canonicalCodes(bits, vals)) {
    const shift = 16 - c.len;
    const start = c.code << shift;
    const entry = c.sym | (c.len << 8);
    for (let i = 0; i < 1 << shift; i++) lookup[start + i] = entry;
  }
  return { lookup };
}

const STD = {
  dc: [encodeTable(DC_LUMA_BITS, DC_LUMA_VALS), encodeTable(DC_CHROMA_BITS, DC_CHROMA_VALS)],
  ac: [encodeTable(AC_LUMA_BITS, AC_LUMA_VALS), encodeTable(AC_CHROMA_BITS, AC_CHROMA_VALS)],
};

/** DHT segment holding the four standard tables (DC 0/1, AC 0/1). */
export function standardDhtSegment(): Uint8Array {
  const tables: [number, readonly number[], readonly number[]][] = [
    [0x00, DC_LUMA_BITS, DC_LUMA_VALS],
    [0x10, AC_LUMA_BITS, AC_LUMA_VALS],
    [0x01, DC_CHROMA_BITS, DC_CHROMA_VALS],
    [0x11, AC_CHROMA_BITS, AC_CHROMA_VALS],
  ];
  const len = 2 + tables.reduce((n, [, , v]) => n + 17 + v.length, 0);
  const out = new Uint8Array(2 + len);
  out.set([0xff, 0xc4, len >> 8, len & 255]);
  let at = 4;
  for (const [tc, bits, vals] of tables) {
    out[at++] = tc;
    out.set(bits, at);
    at += 16;
    out.set(vals, at);
    at += vals.length;
  }
  return out;
}

export interface ScanLayout {
  width: number;
  height: number;
  /** Per scan component, in scan order: sampling factors and table selectors. */
  components: { id: number; h: number; v: number; dc: number; ac: number }[];
  /** Huffman tables of this JPEG by class (0 DC, 1 AC) and id. */
  tables: Map<number, DecodeTable>;
  /** Offsets into the JPEG. */
  sofOffset: number;
  sosOffset: number;
  scanStart: number;
  scanEnd: number;
}

/** Parses a baseline, single-scan, interleaved JPEG as mozjpeg writes it. */
export function parseScanLayout(jpeg: Uint8Array): ScanLayout {
  const tables = new Map<number, DecodeTable>();
  const sampling = new Map<number, { h: number; v: number }>();
  let width = 0;
  let height = 0;
  let sofOffset = -1;
  let i = 2;
  while (i + 4 <= jpeg.length) {
    if (jpeg[i] !== 0xff) throw new Error("JPEG: marker expected");
    const marker = jpeg[i + 1] as number;
    const len = ((jpeg[i + 2] as number) << 8) | (jpeg[i + 3] as number);
    const seg = jpeg.subarray(i + 4, i + 2 + len);
    if (marker === 0xc0 || marker === 0xc1) {
      sofOffset = i;
      height = ((seg[1] as number) << 8) | (seg[2] as number);
      width = ((seg[3] as number) << 8) | (seg[4] as number);
      const n = seg[5] as number;
      for (let c = 0; c < n; c++) {
        const s = seg[7 + c * 3] as number;
        sampling.set(seg[6 + c * 3] as number, { h: s >> 4, v: s & 15 });
      }
    } else if (marker >= 0xc2 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      throw new Error("JPEG: only baseline Huffman is supported");
    } else if (marker === 0xc4) {
      let p = 0;
      while (p < seg.length) {
        const tc = seg[p] as number;
        const bits = Array.from(seg.subarray(p + 1, p + 17));
        const count = bits.reduce((a, b) => a + b, 0);
        const vals = Array.from(seg.subarray(p + 17, p + 17 + count));
        tables.set(((tc >> 4) << 4) | (tc & 15), decodeTable(bits, vals));
        p += 17 + count;
      }
    } else if (marker === 0xda) {
      const n = seg[0] as number;
      const components = [];
      for (let c = 0; c < n; c++) {
        const id = seg[1 + c * 2] as number;
        const sel = seg[2 + c * 2] as number;
        const s = sampling.get(id);
        if (!s) throw new Error("JPEG: scan component not in frame");
        components.push({ id, h: s.h, v: s.v, dc: sel >> 4, ac: sel & 15 });
      }
      const scanStart = i + 2 + len;
      let scanEnd = jpeg.length;
      if (jpeg[scanEnd - 2] === 0xff && jpeg[scanEnd - 1] === 0xd9) scanEnd -= 2;
      return { width, height, components, tables, sofOffset, sosOffset: i, scanStart, scanEnd };
    }
    i += 2 + len;
  }
  throw new Error("JPEG: no scan");
}

/** Re-codes the scan of `jpeg` (described by `layout`) with the standard tables; returns the new scan bytes. */
export function recodeScan(jpeg: Uint8Array, layout: ScanLayout): Uint8Array {
  const { components } = layout;
  const hMax = Math.max(...components.map((c) => c.h));
  const vMax = Math.max(...components.map((c) => c.v));
  const mcus = Math.ceil(layout.width / (8 * hMax)) * Math.ceil(layout.height / (8 * vMax));
  // Block plan of one MCU: for each block, decode tables (DC, AC) and encode tables (0 for the first component).
  const plan: { dcIn: Uint32Array; acIn: Uint32Array; dcOut: EncodeTable; acOut: EncodeTable }[] = [];
  components.forEach((c, index) => {
    const dcIn = layout.tables.get(c.dc);
    const acIn = layout.tables.get(16 | c.ac);
    if (!dcIn || !acIn) throw new Error("JPEG: missing Huffman table");
    const out = index === 0 ? 0 : 1;
    for (let b = 0; b < c.h * c.v; b++)
      plan.push({ dcIn: dcIn.lookup, acIn: acIn.lookup, dcOut: STD.dc[out] as EncodeTable, acOut: STD.ac[out] as EncodeTable });
  });

  const src = jpeg;
  let pos = layout.scanStart;
  const end = layout.scanEnd;
  // Bit reader: `acc` holds `nbits` valid bits, most significant first (kept ≤ 32 bits using a float-safe split).
  let acc = 0;
  let nbits = 0;
  const fill = () => {
    while (nbits <= 24) {
      let byte = 0;
      if (pos < end) {
        byte = src[pos++] as number;
        if (byte === 0xff) {
          const next = src[pos];
          if (next === 0x00) pos++;
          else {
            pos--; // a marker: feed zeros from here on
            byte = 0;
            pos = end;
          }
        }
      }
      acc = ((acc << 8) | byte) >>> 0;
      nbits += 8;
    }
  };
  const peek16 = () => {
    if (nbits < 16) fill();
    return (acc >>> (nbits - 16)) & 0xffff;
  };
  const read = (n: number) => {
    if (n === 0) return 0;
    if (nbits < n) fill();
    const v = (acc >>> (nbits - n)) & ((1 << n) - 1);
    nbits -= n;
    acc &= nbits === 0 ? 0 : (2 ** nbits - 1) >>> 0;
    return v;
  };

  // Bit writer with 0xFF stuffing. The output is at most the input size plus a margin (standard tables can be
  // longer than optimised ones), grown on demand.
  let out = new Uint8Array(Math.max(1024, Math.ceil((end - layout.scanStart) * 1.25)));
  let o = 0;
  let wacc = 0;
  let wbits = 0;
  const ensure = (n: number) => {
    if (o + n <= out.length) return;
    const bigger = new Uint8Array(out.length * 2);
    bigger.set(out.subarray(0, o));
    out = bigger;
  };
  const write = (value: number, n: number) => {
    if (n === 0) return;
    wacc = ((wacc << n) | value) >>> 0;
    wbits += n;
    while (wbits >= 8) {
      ensure(2);
      const byte = (wacc >>> (wbits - 8)) & 255;
      out[o++] = byte;
      if (byte === 0xff) out[o++] = 0;
      wbits -= 8;
      wacc &= (1 << wbits) - 1;
    }
  };

  for (let m = 0; m < mcus; m++) {
    for (const step of plan) {
      // DC
      let e = step.dcIn[peek16()] as number;
      if (e === 0) throw new Error("JPEG: bad DC code");
      read(e >> 8);
      let sym = e & 255;
      if (step.dcOut.size[sym] === 0) throw new Error("JPEG: DC symbol not in the standard table");
      write(step.dcOut.code[sym] as number, step.dcOut.size[sym] as number);
      write(read(sym), sym);
      // AC
      for (let k = 1; k < 64; ) {
        e = step.acIn[peek16()] as number;
        if (e === 0) throw new Error("JPEG: bad AC code");
        read(e >> 8);
        sym = e & 255;
        const size = step.acOut.size[sym] as number;
        if (size === 0) throw new Error("JPEG: AC symbol not in the standard table");
        write(step.acOut.code[sym] as number, size);
        const r = sym >> 4;
        const s = sym & 15;
        if (s === 0) {
          if (r !== 15) break; // EOB
          k += 16;
          continue;
        }
        write(read(s), s);
        k += r + 1;
      }
    }
  }
  // Pad the last byte with 1-bits, as the standard requires.
  if (wbits > 0) write((1 << (8 - wbits)) - 1, 8 - wbits);
  return out.subarray(0, o);
}
