/**
 * Streaming `multipart/form-data` reader.
 *
 * Why hand-written: @remix-run/multipart-parser (0.16) and its predecessor @mjackson/multipart-parser (0.10) are
 * well kept and fast, but both buffer every part whole (`MultipartPart.content: Uint8Array[]`), which is exactly
 * what a 1 GB video must not do. @web3-storage/multipart-parser streams but has been unmaintained since 2022. This
 * reader hands out each part's body chunk by chunk (views into the request's own chunks, no copies except a
 * boundary-sized tail), so memory stays at one network chunk plus the current part's headers.
 */
import { type ByteSource, streamSource } from "./byte-source";

export class MultipartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MultipartError";
  }
}

export interface PartInfo {
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** `name` of Content-Disposition. */
  name: string | null;
  /** `filename` (or `filename*`) of Content-Disposition; null for plain fields. */
  filename: string | null;
}

const MAX_HEADER_BYTES = 16 * 1024;
const CR = 13;
const encoder = new TextEncoder();

/** The boundary of a `multipart/form-data` Content-Type, or null when the header is anything else. */
export function formDataBoundary(contentType: string | null | undefined): string | null {
  if (!contentType) return null;
  const [type, ...params] = contentType.split(";");
  if (type?.trim().toLowerCase() !== "multipart/form-data") return null;
  for (const p of params) {
    const eq = p.indexOf("=");
    if (eq < 0) continue;
    if (p.slice(0, eq).trim().toLowerCase() !== "boundary") continue;
    let v = p.slice(eq + 1).trim();
    if (v.startsWith('"') && v.endsWith('"') && v.length >= 2) v = v.slice(1, -1);
    return v.length > 0 && v.length <= 70 ? v : null;
  }
  return null;
}

export class MultipartReader {
  readonly #source: ByteSource;
  readonly #delimiter: Uint8Array;
  // Starts with a virtual CRLF so the first boundary (which has none in front) matches the same delimiter.
  #buf: Uint8Array = new Uint8Array([13, 10]);
  #pos = 0;
  #eof = false;
  #state: "preamble" | "body" | "delimiter" | "done" = "preamble";

  constructor(source: ByteSource, boundary: string) {
    this.#source = source;
    this.#delimiter = encoder.encode(`\r\n--${boundary}`);
  }

  /** A reader over the request body, or null when the request is not multipart/form-data. */
  static fromRequest(request: Request): MultipartReader | null {
    const boundary = formDataBoundary(request.headers.get("Content-Type"));
    if (!boundary || !request.body) return null;
    return new MultipartReader(streamSource(request.body), boundary);
  }

  /** Moves to the next part (skipping whatever is left of the current one); null after the closing boundary. */
  async nextPart(): Promise<PartInfo | null> {
    if (this.#state === "done") return null;
    if (this.#state === "body") while ((await this.readBody()) !== null);
    if (this.#state === "preamble") {
      for (;;) {
        const at = this.#find();
        if (at >= 0) {
          this.#pos = at;
          break;
        }
        // Keep only a possible delimiter prefix of the preamble.
        this.#pos = at === -1 ? this.#buf.length : -at - 2;
        if (!(await this.#fill())) throw new MultipartError("No multipart boundary found.");
      }
    }
    // #pos is at a delimiter.
    this.#pos += this.#delimiter.length;
    await this.#need(2);
    if (this.#buf[this.#pos] === 45 && this.#buf[this.#pos + 1] === 45) {
      this.#state = "done";
      await this.#source.cancel(); // epilogue is ignored
      return null;
    }
    // Transport padding, then CRLF.
    for (;;) {
      await this.#need(1);
      const c = this.#buf[this.#pos];
      if (c !== 32 && c !== 9) break;
      this.#pos++;
    }
    await this.#need(2);
    if (this.#buf[this.#pos] !== CR || this.#buf[this.#pos + 1] !== 10) throw new MultipartError("Malformed boundary.");
    this.#pos += 2;
    const headers = await this.#readHeaders();
    this.#state = "body";
    const disposition = parseParams(headers["content-disposition"] ?? "");
    return {
      headers,
      name: disposition.name ?? null,
      filename: disposition["filename*"] ?? disposition.filename ?? null,
    };
  }

  /** Next chunk of the current part's body; null at its end. */
  async readBody(): Promise<Uint8Array | null> {
    if (this.#state !== "body") return null;
    for (;;) {
      const at = this.#find();
      if (at >= 0) {
        const chunk = this.#buf.subarray(this.#pos, at);
        this.#pos = at;
        if (chunk.length > 0) return chunk;
        this.#state = "delimiter";
        return null;
      }
      // -1: no delimiter; otherwise a delimiter may start at (-at - 2) and continue in the next chunk.
      const end = at === -1 ? this.#buf.length : -at - 2;
      if (end > this.#pos) {
        const chunk = this.#buf.subarray(this.#pos, end);
        this.#pos = end;
        return chunk;
      }
      if (!(await this.#fill())) throw new MultipartError("Unexpected end of multipart body.");
    }
  }

  /** The current part's body as a ByteSource (read it before calling nextPart again). */
  partBody(): ByteSource {
    return { read: () => this.readBody(), cancel: (reason) => this.cancel(reason) };
  }

  async cancel(reason?: unknown): Promise<void> {
    this.#state = "done";
    await this.#source.cancel(reason);
  }

  /** Index of the delimiter at or after #pos; -1 if absent; `-(i + 2)` if a prefix of it ends the buffer at i. */
  #find(): number {
    const buf = this.#buf;
    const d = this.#delimiter;
    let i = this.#pos;
    for (;;) {
      i = buf.indexOf(CR, i);
      if (i < 0) return -1;
      let j = 1;
      while (j < d.length && i + j < buf.length && buf[i + j] === d[j]) j++;
      if (j === d.length) return i;
      if (i + j === buf.length) return -(i + 2);
      i++;
    }
  }

  async #fill(): Promise<boolean> {
    if (this.#eof) return false;
    const chunk = await this.#source.read();
    if (!chunk) {
      this.#eof = true;
      return false;
    }
    const rest = this.#buf.length - this.#pos;
    if (rest === 0) this.#buf = chunk;
    else {
      const next = new Uint8Array(rest + chunk.length);
      next.set(this.#buf.subarray(this.#pos));
      next.set(chunk, rest);
      this.#buf = next;
    }
    this.#pos = 0;
    return true;
  }

  async #need(n: number): Promise<void> {
    while (this.#buf.length - this.#pos < n) {
      if (!(await this.#fill())) throw new MultipartError("Unexpected end of multipart body.");
    }
  }

  async #readHeaders(): Promise<Record<string, string>> {
    for (;;) {
      const end = indexOfCrlfCrlf(this.#buf, this.#pos);
      if (end >= 0) {
        const text = new TextDecoder().decode(this.#buf.subarray(this.#pos, end));
        this.#pos = end + 4;
        const headers: Record<string, string> = {};
        for (const line of text.split("\r\n")) {
          const colon = line.indexOf(":");
          if (colon <= 0) continue;
          const key = line.slice(0, colon).trim().toLowerCase();
          const value = line.slice(colon + 1).trim();
          headers[key] = headers[key] ? `${headers[key]}, ${value}` : value;
        }
        return headers;
      }
      // An empty header block: the part starts with CRLF directly.
      if (this.#buf.length - this.#pos >= 2 && this.#buf[this.#pos] === CR && this.#buf[this.#pos + 1] === 10) {
        this.#pos += 2;
        return {};
      }
      if (this.#buf.length - this.#pos > MAX_HEADER_BYTES) throw new MultipartError("Part headers too large.");
      if (!(await this.#fill())) throw new MultipartError("Unexpected end of multipart body.");
    }
  }
}

function indexOfCrlfCrlf(buf: Uint8Array, from: number): number {
  let i = from;
  for (;;) {
    i = buf.indexOf(CR, i);
    if (i < 0 || i + 3 >= buf.length) return -1;
    if (buf[i + 1] === 10 && buf[i + 2] === CR && buf[i + 3] === 10) return i;
    i++;
  }
}

/** `form-data; name="media"; filename="a b.png"` → {name, filename}; `filename*=UTF-8''…` is decoded. */
export function parseParams(header: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  for (let m = re.exec(header); m; m = re.exec(header)) {
    const key = (m[1] as string).toLowerCase();
    let value = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : (m[3] ?? "").trim();
    if (key.endsWith("*")) {
      const ext = /^([^']*)'[^']*'(.*)$/.exec(value);
      if (ext) {
        try {
          value = decodeURIComponent(ext[2] as string);
        } catch {
          continue;
        }
      }
    }
    out[key] = value;
  }
  return out;
}
