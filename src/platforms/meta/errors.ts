import { classifyStatus } from "../http";
import { PlatformError, type PlatformErrorKind } from "../types";
import type { GraphErrorBody } from "./types";
import { usageRetryAfterSeconds } from "./usage";

/**
 * Graph error envelope → PlatformError, shared by Facebook, both Instagrams and Threads. Meta's HTTP status says
 * little (throttles come back 400/403, expired tokens 400), so the `code` decides:
 * - 190 (and 102, 104, 2500: no/invalid session) → auth;
 * - 4 app, 17 user, 32 page, 341 application limit, 613 custom, 80001–80014 business-use-case throttles, and 9 →
 *   transient, wait from usage headers. Code 9 is what integrators get for a spent publishing limit ("OAuthException
 *   … Error Code 9 or 32", Instagram's 24-hour limit; Threads' own docs list no error for its 250-posts quota:
 *   developers.facebook.com/docs/threads/troubleshooting names only `threads_publishing_limit`), and a limit that
 *   heals with time is never a permanent failure;
 * - 1, 2 unknown/temporary, `is_transient`, 5xx → transient;
 * - anything else (100 invalid parameter, 10/200–299 permission, 368 policy block, 506 duplicate…) → permanent.
 */

const AUTH_CODES = new Set([102, 104, 190, 2500]);
/** Graph "Handling Errors": 4 API Too Many Calls, 17 User Too Many Calls, 32 Page, 341 Application limit, 613 custom. */
const THROTTLE_CODES = new Set([4, 9, 17, 32, 341, 613]);
/** 1/2 unknown or temporary; 9007 "media not ready" when publishing an unfinished container. */
const TRANSIENT_CODES = new Set([1, 2, 9007]);

/**
 * Instagram subcodes (also inside container `status` strings, "Error: … 2207026") in plain words. Meta's own
 * messages for these are generic ("Media upload has failed"), so the subcode says more.
 */
export const SUBCODE_REASONS: Record<number, string> = {
  2207001: "Instagram flagged the post as spam.",
  2207003: "Instagram timed out downloading the media.",
  2207004: "The image is too large for Instagram.",
  2207005: "Instagram does not support this image format.",
  2207009: "Instagram does not support this aspect ratio.",
  2207010: "The caption is too long for Instagram.",
  2207026: "Instagram does not support this video format.",
  2207027: "The media is not ready to be published yet.",
  2207042: "The account reached Instagram's daily publishing limit.",
  2207050: "The Instagram account is restricted.",
  2207052: "Instagram could not fetch the media from its URL.",
};
/** Subcodes worth retrying: download timeout, not ready yet, daily limit (a rolling 24 h window). */
const TRANSIENT_SUBCODES = new Set([2207003, 2207027, 2207042]);

/** Container `status` text ("Error: Media upload has failed with error code 2207026") in plain words. */
export function describeContainerStatus(status: string | undefined, label: string): string {
  const code = Number(status?.match(/\b(22\d{5})\b/)?.[1]);
  if (code && SUBCODE_REASONS[code]) return SUBCODE_REASONS[code];
  const text = status?.replace(/^error:\s*/i, "").trim();
  return text ? `${label} could not process the media: ${text}` : `${label} could not process the media.`;
}

export function isThrottleCode(code: number | undefined): boolean {
  return code !== undefined && (THROTTLE_CODES.has(code) || (code >= 80001 && code <= 80014));
}

/** Plain-words reason: Meta's user-facing message when given, else its message without the "(#100) " prefix. */
export function graphErrorMessage(body: GraphErrorBody | null, fallback: string): string {
  const e = body?.error;
  const bySubcode = e?.error_subcode !== undefined ? SUBCODE_REASONS[e.error_subcode] : undefined;
  if (bySubcode) return bySubcode;
  // rupload answers `{"debug_info":{"type","message"}}` instead of the Graph envelope.
  const debug = (body as { debug_info?: { message?: string } } | null)?.debug_info?.message;
  const text = e?.error_user_msg?.trim() || e?.message?.replace(/^\(#\d+\)\s*/, "").trim() || debug?.trim() || "";
  return text || fallback;
}

export function graphErrorKind(status: number, body: GraphErrorBody | null): PlatformErrorKind {
  const e = body?.error;
  const code = typeof e?.code === "number" ? e.code : undefined;
  if (code !== undefined && AUTH_CODES.has(code)) return "auth";
  if (e?.error_subcode !== undefined && TRANSIENT_SUBCODES.has(e.error_subcode)) return "transient";
  if (isThrottleCode(code)) return "transient";
  if (code !== undefined && TRANSIENT_CODES.has(code)) return "transient";
  if (e?.is_transient === true) return "transient";
  if (status >= 500) return "transient";
  if (code !== undefined) return "permanent";
  return classifyStatus(status);
}

/** Removes a secret (the access token) should Meta ever echo it back in a message. */
export function scrub(message: string, secrets: Array<string | undefined>): string {
  let out = message;
  for (const s of secrets) if (s && s.length >= 8) out = out.split(s).join("[redacted]");
  return out;
}

/**
 * Graph's permission errors: code 10 ("Application does not have permission for this action", a permission the
 * user took back) and 200–299 ("Permissions error", e.g. the Page role that gave `pages_manage_posts` removed) —
 * Graph API "Handling Errors" (developers.facebook.com/docs/graph-api/guides/error-handling: "10, 200-299 …
 * Permission is either not granted or has been removed"). Only a reconnect that grants them again helps.
 */
export function isPermissionCode(code: number | undefined): boolean {
  return code !== undefined && (code === 10 || (code >= 200 && code <= 299));
}

export function graphError(
  label: string,
  res: { status: number; headers: Headers },
  body: GraphErrorBody | null,
  secrets: Array<string | undefined> = [],
): PlatformError {
  const kind = graphErrorKind(res.status, body);
  const message = scrub(graphErrorMessage(body, `${label} returned HTTP ${res.status}.`), secrets);
  const retryAfterSeconds = kind === "transient" ? usageRetryAfterSeconds(res.headers) : undefined;
  const code = typeof body?.error?.code === "number" ? body.error.code : undefined;
  const needsReconnect = kind === "permanent" && isPermissionCode(code);
  return new PlatformError(kind, message, { status: res.status, retryAfterSeconds, needsReconnect });
}
