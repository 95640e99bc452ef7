/** Calls to the UploadGuard Durable Object for signed uploads (instance names in docs/storage.md). */
import type { WindowResult } from "../../durable-objects/upload-guard";

export function tokenGuard(env: Cloudflare.Env, token: string) {
  return env.UPLOAD_GUARD.getByName(`upload-token:${token}`);
}

/** Counts this request in the client IP's one-minute window (every request counts, whatever its outcome). */
export function hitIpWindow(env: Cloudflare.Env, ip: string, limitPerMinute: number): Promise<WindowResult> {
  const name = `ip:${ip}`;
  return env.UPLOAD_GUARD.getByName(name).hit(name, limitPerMinute, 60, Date.now()) as Promise<WindowResult>;
}
