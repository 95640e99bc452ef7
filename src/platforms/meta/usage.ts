import type { AdAccountUsage, BusinessUseCaseUsage } from "./types";

/**
 * Meta never sends 429 or Retry-After for its own quotas: throttled calls answer 400/403 with a throttle code and
 * usage headers holding percentages. Only `X-Business-Use-Case-Usage` (minutes) and `X-Ad-Account-Usage`
 * (seconds) carry a time until access is regained; `X-App-Usage`/`X-Page-Usage` carry none.
 */

function parseJson(value: string | null): unknown {
  if (!value) return undefined;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** Seconds until a throttled caller regains access, from Meta usage headers (and a Retry-After if a proxy adds one). */
export function usageRetryAfterSeconds(headers: Headers): number | undefined {
  const hints: number[] = [];

  const buc = parseJson(headers.get("x-business-use-case-usage"));
  if (buc && typeof buc === "object") {
    for (const entries of Object.values(buc as Record<string, unknown>)) {
      if (!Array.isArray(entries)) continue;
      for (const entry of entries as BusinessUseCaseUsage[]) {
        const minutes = Number(entry?.estimated_time_to_regain_access);
        if (Number.isFinite(minutes) && minutes > 0) hints.push(Math.ceil(minutes * 60));
      }
    }
  }

  const ad = parseJson(headers.get("x-ad-account-usage")) as AdAccountUsage | undefined;
  const reset = Number(ad?.reset_time_duration);
  if (Number.isFinite(reset) && reset > 0) hints.push(Math.ceil(reset));

  const retryAfter = Number(headers.get("retry-after"));
  if (headers.get("retry-after") && Number.isFinite(retryAfter) && retryAfter > 0) hints.push(Math.ceil(retryAfter));

  return hints.length > 0 ? Math.max(...hints) : undefined;
}
