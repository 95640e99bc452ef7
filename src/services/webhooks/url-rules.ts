import type { Config } from "../../config";
import { nameRefusal, outboundRefusal } from "../../lib/outbound-guard";

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

/**
 * `webhookUrlProblem`, and then, where the service resolves names (`OUTBOUND_EGRESS=resolve`), the URL's host name
 * resolved as delivery would resolve it (issue 35): a name pointing at a loopback or private address, one that does
 * not resolve, or a resolver that cannot answer is refused when the endpoint is created or its URL changed, not
 * only at its first delivery. Delivery still checks each time (the name can change meanwhile). Under `cloudflare`
 * nothing is resolved: the edge's egress does not reach private networks (docs/webhooks.md).
 */
export async function webhookUrlRefusal(
  config: Pick<Config, "MEDIA_FETCH_ALLOW_PRIVATE">,
  raw: string,
): Promise<string | null> {
  const problem = webhookUrlProblem(config, raw);
  if (problem) return problem;
  const reason = await nameRefusal(new URL(raw), { allowPrivate: config.MEDIA_FETCH_ALLOW_PRIVATE });
  return reason ? `The url is refused: ${reason}` : null;
}
