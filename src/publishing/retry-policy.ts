/**
 * When a transient failure is retried and when it is final. The queue's `max_retries` lives in wrangler.jsonc
 * (publish-jobs consumer); keep PUBLISH_MAX_RETRIES equal to it so the last delivery fails the row itself with the
 * last error instead of leaving it to the dead-letter consumer.
 */
export const PUBLISH_MAX_RETRIES = 5;

/** First retry waits this long when the platform gave no hint; doubles per attempt. */
export const RETRY_BASE_DELAY_SECONDS = 30;

/**
 * Upper bound of one retry delay. Kept well under the one-hour stuck-row timeout so a row waiting on a platform
 * reset is not swept as "timed out" (X windows are 15 minutes; daily caps cannot be waited out anyway).
 */
export const RETRY_MAX_DELAY_SECONDS = 1800;

/** Whether the delivery with this attempt number (1-based, `message.attempts`) is the last one the queue makes. */
export function isFinalAttempt(attempt: number, maxRetries = PUBLISH_MAX_RETRIES): boolean {
  return attempt > maxRetries;
}

/**
 * Delay before the next delivery. The platform's reset hint (Retry-After, x-rate-limit-reset, ratelimit-reset,
 * X-RateLimit-Reset, Meta estimated_time_to_regain_access) wins when present; otherwise exponential backoff with
 * ±20 % jitter so a burst of failures does not come back as one burst.
 */
export function retryDelaySeconds(attempt: number, hintSeconds?: number, random: () => number = Math.random): number {
  if (hintSeconds !== undefined && Number.isFinite(hintSeconds)) {
    return clamp(Math.ceil(hintSeconds), 1, RETRY_MAX_DELAY_SECONDS);
  }
  const base = RETRY_BASE_DELAY_SECONDS * 2 ** Math.max(0, attempt - 1);
  const jitter = 1 + (random() * 0.4 - 0.2);
  return clamp(Math.round(base * jitter), 1, RETRY_MAX_DELAY_SECONDS);
}

const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, n));
