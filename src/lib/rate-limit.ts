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
