/**
 * When a failed attempt is tried again (docs/webhooks.md "Retries"): the Standard Webhooks / Svix schedule —
 * after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h — eight attempts over about 27.6 hours. Every attempt carries
 * the same `webhook-id`.
 */
export const RETRY_DELAYS_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_SECONDS.length + 1;

/** Delay before attempt `attempt + 1` after attempt `attempt` failed, or null when the schedule is over. */
export const retryDelaySeconds = (attempt: number): number | null => RETRY_DELAYS_SECONDS[attempt - 1] ?? null;

/** An endpoint whose every attempt has failed for this long (no success in between) is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;

/** Per-attempt limits: the receiver has this long to answer; only this much of its body is kept. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const RESPONSE_EXCERPT_BYTES = 256;

/** The old secret of a rotation keeps signing (beside the new one) for this long. */
export const SECRET_ROTATION_GRACE_MS = 24 * 3600 * 1000;

/** Events and their delivery logs are kept this long after they happened, once every delivery is finished. */
export const WEBHOOK_RETENTION_MS = 30 * 24 * 3600 * 1000;
/** Events deleted per cron tick (their deliveries cascade). */
export const RETENTION_DELETES_PER_TICK = 1000;

/** The cron re-enqueues a pending delivery whose message is this late, and frees a `sending` one this old. */
export const LOST_MESSAGE_GRACE_MS = 5 * 60 * 1000;
