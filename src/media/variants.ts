/**
 * Per-network image variants (issue 16). An image over a network's byte/pixel limit, or in a format it does not
 * take, is published as a variant made by `fitImage` (downscaled and/or re-encoded to JPEG). The original is never
 * changed and `media[]` keeps showing it.
 *
 * Key scheme: `variants/<uuid of the original's medias/ key>/<spec hash>.jpg`, where the spec hash is the first 16
 * hex digits of SHA-256 over the fit target (bytes, sizes, formats). The same original and the same target give
 * the same key, so retries and other posts (and other networks with the same limits) reuse it; the variant is
 * deleted with the original (src/services/media/release-media.ts lists the prefix). Served like originals at
 * `{MEDIA_URL}/variants/<uuid>/<hash>.jpg` for networks that pull by URL.
 *
 * When: at publish time, in the queue consumer, by the row that needs it — one message per row, so a post for
 * several networks spreads its fits over several invocations, each inside the consumer's CPU limit; nothing is made
 * for drafts that are never published. Numbers: bench/RESULTS.md ("Fitting images").
 */
import type { ImageRules } from "../catalog/media-specs";
import { DECODE_RESERVE_BYTES, type MemoryGate } from "../lib/memory-budget";
import { FitError, type FitMime, type FitSpec, fitImage } from "./fit-image";

export const VARIANT_KEY =
  /^variants\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\/[0-9a-f]{16}\.jpg$/;

export interface VariantSource {
  /** R2 key of the original, `medias/<uuid>.<ext>`. */
  path: string;
  mimeType: string;
  size: number | null;
  width: number | null;
  height: number | null;
}

export interface Variant {
  path: string;
  mimeType: string;
  size: number;
  width: number;
  height: number;
}

const FITTABLE: readonly string[] = ["image/jpeg", "image/png", "image/webp"];

/** The fit target for one image under one network's rules; null when the original already meets them. */
export function fitSpecFor(rules: ImageRules, m: VariantSource): FitSpec | null {
  if (!FITTABLE.includes(m.mimeType)) return null; // GIFs are never re-encoded (checked at schedule time)
  const formats = rules.formats.filter((f): f is FitMime => FITTABLE.includes(f));
  const spec: FitSpec = { maxBytes: rules.max_bytes ?? Number.MAX_SAFE_INTEGER, formats };
  if (rules.max_pixels !== null) spec.maxPixels = rules.max_pixels;
  if (rules.max_long_side !== null || rules.max_short_side !== null) {
    const long = rules.max_long_side ?? rules.max_short_side!;
    const short = rules.max_short_side ?? long;
    const landscape = (m.width ?? 1) >= (m.height ?? 0);
    spec.maxWidth = landscape ? long : short;
    spec.maxHeight = landscape ? short : long;
  }
  const w = m.width ?? 0;
  const h = m.height ?? 0;
  const fits =
    formats.includes(m.mimeType as FitMime) &&
    m.size !== null &&
    m.size <= spec.maxBytes &&
    w > 0 &&
    h > 0 &&
    (spec.maxPixels === undefined || w * h <= spec.maxPixels) &&
    (spec.maxWidth === undefined || w <= spec.maxWidth) &&
    (spec.maxHeight === undefined || h <= spec.maxHeight);
  return fits ? null : spec;
}

async function specHash(spec: FitSpec): Promise<string> {
  const canonical = JSON.stringify([
    spec.maxBytes,
    spec.maxWidth ?? 0,
    spec.maxHeight ?? 0,
    spec.maxPixels ?? 0,
    [...spec.formats].sort(),
  ]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  return [...new Uint8Array(digest).slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** `medias/<uuid>.jpg` → `variants/<uuid>/`, the prefix of every variant of that original. */
export function variantPrefix(originalPath: string): string | null {
  const m = /^medias\/([0-9a-f-]{36})\.[a-z0-9]+$/.exec(originalPath);
  return m ? `variants/${m[1]}/` : null;
}

export class VariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "VariantError";
  }
}

/**
 * The variant of `m` for `spec`: reused when stored, otherwise made from the original and stored. Concurrent makers
 * write the same bytes under the same key, so the race is harmless. With a `gate`, the original's bytes (twice) and
 * a decode's working memory are taken from the isolate's memory budget before the original is read, and given back
 * once the variant is stored (MemoryBusyError, retried by the queue, when they are not free in time).
 */
export async function variantFor(
  bucket: R2Bucket,
  m: VariantSource,
  spec: FitSpec,
  gate?: MemoryGate,
): Promise<Variant> {
  const prefix = variantPrefix(m.path);
  if (!prefix) throw new VariantError(`Media ${m.path} has no variant key.`);
  const path = `${prefix}${await specHash(spec)}.jpg`;
  const existing = await bucket.head(path);
  if (existing) {
    return {
      path,
      mimeType: "image/jpeg",
      size: existing.size,
      width: Number(existing.customMetadata?.width),
      height: Number(existing.customMetadata?.height),
    };
  }
  const release = gate ? await gate(2 * (m.size ?? 0) + DECODE_RESERVE_BYTES) : () => {};
  try {
    return await makeVariant(bucket, m, spec, path);
  } finally {
    release();
  }
}

async function makeVariant(bucket: R2Bucket, m: VariantSource, spec: FitSpec, path: string): Promise<Variant> {
  const original = await bucket.get(m.path);
  if (!original) throw new VariantError(`Media ${m.path} is missing from storage.`);
  const input = new Uint8Array(await original.arrayBuffer());
  let fitted: Awaited<ReturnType<typeof fitImage>>;
  try {
    fitted = await fitImage(input, m.mimeType as FitMime, spec);
  } catch (err) {
    if (err instanceof FitError) throw new VariantError(err.message);
    throw err;
  }
  await bucket.put(path, fitted.bytes, {
    httpMetadata: { contentType: fitted.mime },
    customMetadata: { width: String(fitted.width), height: String(fitted.height), source: m.path },
  });
  return { path, mimeType: fitted.mime, size: fitted.bytes.length, width: fitted.width, height: fitted.height };
}

/** Deletes every variant of the given originals (called when the originals are deleted). */
export async function deleteVariants(bucket: R2Bucket, originalPaths: readonly string[]): Promise<void> {
  for (const original of originalPaths) {
    const prefix = variantPrefix(original);
    if (!prefix) continue;
    let cursor: string | undefined;
    do {
      const listed = await bucket.list({ prefix, cursor });
      if (listed.objects.length) await bucket.delete(listed.objects.map((o) => o.key));
      cursor = listed.truncated ? listed.cursor : undefined;
    } while (cursor);
  }
}
