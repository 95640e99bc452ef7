import type { Config } from "../../config";
import { outboundRefusal } from "../../lib/outbound-guard";

export const WEBHOOK_URL_MAX_LENGTH = 2048;

/**
 * Why `raw` may not be a webhook URL, or null: public `https` only, under the shared outbound guard
 * (src/lib/outbound-guard.ts, docs/security.md: no loopback, private, link-local or metadata hosts, ports 80/443,
 * no credentials). MEDIA_FETCH_ALLOW_PRIVATE (development) lifts the address rules and allows `http`, so a receiver
 * on loopback can be used.
 */
export function webhookUrlProblem(config: Pick<Config, "MEDIA_FETCH_ALLOW_PRIVATE">, raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "The url field must be a valid URL.";
  }
  if (url.protocol !== "https:" && !(config.MEDIA_FETCH_ALLOW_PRIVATE && url.protocol === "http:"))
    return "The url field must be an https URL.";
  const reason = outboundRefusal(url, { allowPrivate: config.MEDIA_FETCH_ALLOW_PRIVATE });
  return reason ? `The url is refused: ${reason}` : null;
}
