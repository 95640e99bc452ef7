import type { Config } from "../config";

/**
 * Public URL of a stored object. MEDIA_URL (e.g. a public R2 domain) wins; without it the Worker serves media
 * itself at `<origin>/media/<path>`.
 */
export function mediaPublicUrl(config: Pick<Config, "MEDIA_URL">, origin: string, path: string): string {
  const base = config.MEDIA_URL || `${origin}/media`;
  return `${base}/${path}`;
}
