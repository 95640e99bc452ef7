import type { AccountMediaLimits } from "../catalog/media-specs";
import { accountMediaRules } from "../catalog/media-specs";
import { platformSpec } from "../catalog/platforms";
import type { ServiceContext } from "../context";
import { mediaPublicUrl } from "../lib/media-url";
import { memoryGate } from "../lib/memory-budget";
import { fitSpecFor, VariantError, variantFor } from "../media/variants";
import type { AdapterMedia } from "../platforms/types";

/**
 * What the adapter of one row receives: each image that breaks its network's byte/pixel/format limits is replaced
 * by its variant for that network (src/media/variants.ts: made once, stored beside the original, reused by
 * retries and other posts); everything else is the original. One image is fitted at a time, so a post's fits
 * never hold two decoded images at once. Throws VariantError (the row fails with its message) when an image cannot
 * be fitted.
 */
export async function fitMediaForRow(
  ctx: Pick<ServiceContext, "env" | "config" | "origin">,
  platform: string,
  contentType: string,
  items: AdapterMedia[],
  /** The account's own server's limits (a Mastodon instance's), over the catalog's. */
  limits?: AccountMediaLimits,
): Promise<AdapterMedia[]> {
  const rules = accountMediaRules(contentType, limits)?.image;
  if (!rules) return items;
  const out: AdapterMedia[] = [];
  for (const m of items) {
    const spec = m.type === "image" ? fitSpecFor(rules, m) : null;
    if (!spec) {
      out.push(m);
      continue;
    }
    try {
      const v = await variantFor(ctx.env.MEDIA_BUCKET, m, spec, memoryGate(ctx.config));
      out.push({
        ...m,
        path: v.path,
        url: mediaPublicUrl(ctx.config, ctx.origin, v.path),
        mimeType: v.mimeType,
        size: v.size,
        width: v.width,
        height: v.height,
      });
    } catch (err) {
      if (!(err instanceof VariantError)) throw err;
      throw new VariantError(`${platformSpec(platform).label}: ${m.originalFilename} cannot be fitted: ${err.message}`);
    }
  }
  return out;
}
