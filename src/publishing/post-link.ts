import type { Config } from "../config";

/**
 * The link stored for a published post: the network's own URL, or — for a network origin listed in
 * `POST_LINK_ORIGINS` (the local sandbox, README "Local sandbox") — the same path and query on the listed origin.
 */
export function postLink(config: Pick<Config, "POST_LINK_ORIGINS">, url: string | null): string | null {
  if (!url) return url;
  for (const [from, to] of config.POST_LINK_ORIGINS) {
    if (url === from || url.startsWith(`${from}/`) || url.startsWith(`${from}?`)) return to + url.slice(from.length);
  }
  return url;
}
