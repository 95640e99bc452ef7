import type { KeyHits } from "../durable-objects/upload-guard";

const apiKeySubject = (keyId: string) => `api-key:${keyId}`;

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
