/**
 * Serving stored media from R2 (`GET /media/medias/<file>`): correct Content-Type, strong ETag, conditional GET
 * (304), single byte ranges (206 / 416) and a year of immutable caching — keys are never reused, a new upload
 * always gets a new UUID.
 */
export const MEDIA_CACHE_CONTROL = "public, max-age=31536000, immutable";

/**
 * Served media is data, never a document: a browser must not sniff it into HTML or script (nosniff) and, if it is
 * ever rendered as a document anyway (opened directly, or an SVG/HTML slipped into storage some other way), it may
 * load nothing and runs in a sandbox without scripts, forms or same-origin access. Images and videos embedded
 * elsewhere (<img>, <video>) are not affected: CSP applies to the document being served, not to embedders.
 */
export const MEDIA_SECURITY_HEADERS = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; sandbox",
} as const;

/** The type each servable extension is served as, whatever the object's metadata says. */
const TYPE_OF_EXTENSION: Record<string, string> = {
  jpg: "image/jpeg",
  gif: "image/gif",
  mp4: "video/mp4",
  mov: "video/quicktime",
};

/** Keys the Worker serves: exactly what the pipeline writes. */
export const SERVABLE_KEY = /^medias\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(jpg|gif|mp4|mov)$/;

type Range = { offset: number; length?: number } | { suffix: number };

/** One `bytes=` range; null when absent or not a single range we understand (then the whole object is sent). */
export function parseRange(header: string | null): Range | "invalid" | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  const [, a, b] = m;
  if (a === "" && b === "") return "invalid";
  if (a === "") return Number(b) > 0 ? { suffix: Number(b) } : "invalid";
  const start = Number(a);
  if (b === "") return { offset: start };
  const end = Number(b);
  if (end < start) return "invalid";
  return { offset: start, length: end - start + 1 };
}

function baseHeaders(object: R2Object): Headers {
  const headers = new Headers();
  object.writeHttpMetadata(headers);
  const type = TYPE_OF_EXTENSION[object.key.slice(object.key.lastIndexOf(".") + 1)];
  if (type) headers.set("Content-Type", type);
  for (const [name, value] of Object.entries(MEDIA_SECURITY_HEADERS)) headers.set(name, value);
  headers.set("ETag", object.httpEtag);
  headers.set("Cache-Control", MEDIA_CACHE_CONTROL);
  headers.set("Accept-Ranges", "bytes");
  headers.set("Last-Modified", object.uploaded.toUTCString());
  if (!headers.has("Content-Type")) headers.set("Content-Type", "application/octet-stream");
  return headers;
}

function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((t) => t.trim().replace(/^W\//, "") === bare);
}

export async function serveMedia(bucket: R2Bucket, key: string, request: Request): Promise<Response | null> {
  const head = request.method === "HEAD";
  const meta = await bucket.head(key);
  if (!meta) return null;
  const headers = baseHeaders(meta);
  if (etagMatches(request.headers.get("If-None-Match"), meta.httpEtag))
    return new Response(null, { status: 304, headers });

  let range = parseRange(request.headers.get("Range"));
  // If-Range with a different validator: send the whole (changed) object.
  const ifRange = request.headers.get("If-Range");
  if (range && ifRange && ifRange !== meta.httpEtag) range = null;
  const size = meta.size;
  if (range === "invalid" || (range && "offset" in range && range.offset >= size) || (range && size === 0)) {
    headers.set("Content-Range", `bytes */${size}`);
    return new Response(null, { status: 416, headers });
  }
  if (!range) {
    headers.set("Content-Length", String(size));
    if (head) return new Response(null, { status: 200, headers });
    const object = await bucket.get(key);
    if (!object) return null;
    return new Response(object.body, { status: 200, headers });
  }
  let offset: number;
  let length: number;
  if ("suffix" in range) {
    length = Math.min(range.suffix, size);
    offset = size - length;
  } else {
    offset = range.offset;
    length = Math.min(range.length ?? size - offset, size - offset);
  }
  headers.set("Content-Range", `bytes ${offset}-${offset + length - 1}/${size}`);
  headers.set("Content-Length", String(length));
  if (head) return new Response(null, { status: 206, headers });
  const object = await bucket.get(key, { range: { offset, length } });
  if (!object) return null;
  return new Response(object.body, { status: 206, headers });
}
