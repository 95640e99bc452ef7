import type { WindowResult } from "../durable-objects/upload-guard";

/** Fixed one-minute windows kept by the UploadGuard Durable Object named after the subject. */
export async function hitRateLimit(
  env: Cloudflare.Env,
  subject: string,
  limitPerMinute: number,
): Promise<WindowResult> {
  const stub = env.UPLOAD_GUARD.getByName(subject);
  return stub.hit(subject, limitPerMinute, 60, Date.now()) as Promise<WindowResult>;
}

const apiKeySubject = (keyId: string) => `api-key:${keyId}`;

/** The per-key throttle window, plus whether the key has been revoked (the Durable Object is the authority). */
export async function hitApiKeyWindow(
  env: Cloudflare.Env,
  keyId: string,
  limitPerMinute: number,
): Promise<WindowResult & { revoked: boolean }> {
  const subject = apiKeySubject(keyId);
  return env.UPLOAD_GUARD.getByName(subject).hitApiKey(subject, limitPerMinute, 60, Date.now()) as Promise<
    WindowResult & { revoked: boolean }
  >;
}

export async function revokeApiKeyEverywhere(env: Cloudflare.Env, keyId: string): Promise<void> {
  const subject = apiKeySubject(keyId);
  await env.UPLOAD_GUARD.getByName(subject).revokeApiKey(subject, Date.now());
}
