import type { KeyHits } from "../durable-objects/upload-guard";

/**
 * A throttle id is an API key id, `user:<id>` for a signed-in person, or `workspace:<id>` for the workspace-wide window that every key of the workspace
 * also counts against (so minting more keys does not multiply the budget). Each has its own Durable Object.
 */
export const workspaceThrottleId = (workspaceId: string) => `workspace:${workspaceId}`;
/** A signed-in person's own window (issue 27): the same limit as a key's, keyed by the person. */
export const personThrottleId = (userId: string) => `user:${userId}`;
const apiKeySubject = (throttleId: string) =>
  throttleId.startsWith("workspace:") || throttleId.startsWith("user:") ? throttleId : `api-key:${throttleId}`;

/** Takes hits from a key's one-minute window in its Durable Object (see throttle-leases.ts). */
export function takeApiKeyHits(
  env: Cloudflare.Env,
  keyId: string,
  limitPerMinute: number,
  nowMs: number,
  want: number,
  giveBack?: { windowStart: number; hits: number },
): Promise<KeyHits> {
  const subject = apiKeySubject(keyId);
  return env.UPLOAD_GUARD.getByName(subject).takeApiKeyHits(
    subject,
    limitPerMinute,
    60,
    nowMs,
    want,
    giveBack,
  ) as Promise<KeyHits>;
}

export async function revokeApiKeyEverywhere(env: Cloudflare.Env, keyId: string): Promise<void> {
  const subject = apiKeySubject(keyId);
  await env.UPLOAD_GUARD.getByName(subject).revokeApiKey(subject, Date.now());
}
