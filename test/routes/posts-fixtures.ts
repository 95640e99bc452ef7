import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { TestWorkspace } from "../support/harness";

/** Test data for the post tests: accounts through the API, media and odd account states straight in D1. */

export async function connectAccount(
  ws: TestWorkspace,
  platform: string,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; platform: string; display_name: string; username: string; avatar_url: string | null }> {
  const res = await ws.api("POST", "/api/social-accounts", {
    platform,
    display_name: `${platform} account`,
    username: `${platform.replace(/-/g, "")}_user`,
    avatar_url: `https://avatars.test/${platform}.png`,
    credentials: { access_token: "token" },
    meta: platform === "linkedin-page" ? { organization_id: "123" } : {},
    ...overrides,
  });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

/** Bluesky/Mastodon verify against a server when connected through the API: insert the row directly. */
export async function insertAccount(
  ws: TestWorkspace,
  platform: string,
  opts: { isActive?: boolean; status?: string; meta?: Record<string, unknown> } = {},
): Promise<string> {
  const id = crypto.randomUUID();
  const now = Date.now();
  await env.DB.prepare(
    "INSERT INTO social_accounts (id, workspace_id, platform, display_name, username, avatar_url, is_active, status, meta, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  )
    .bind(
      id,
      ws.workspaceId,
      platform,
      `${platform} account`,
      `${platform}_user`,
      null,
      opts.isActive === false ? 0 : 1,
      opts.status ?? "connected",
      JSON.stringify(opts.meta ?? {}),
      now,
      now,
    )
    .run();
  return id;
}

export async function insertMedia(ws: TestWorkspace, type: "image" | "video", opts: { uploadToken?: string } = {}) {
  const id = crypto.randomUUID();
  const ext = type === "image" ? "jpg" : "mp4";
  const path = `medias/${id}.${ext}`;
  const mime = type === "image" ? "image/jpeg" : "video/mp4";
  await env.DB.prepare(
    "INSERT INTO media (id, workspace_id, path, type, mime_type, original_filename, size, width, height, upload_token, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  )
    .bind(
      id,
      ws.workspaceId,
      path,
      type,
      mime,
      `file.${ext}`,
      1234,
      type === "image" ? 800 : null,
      type === "image" ? 600 : null,
      opts.uploadToken ?? null,
      Date.now(),
    )
    .run();
  await env.MEDIA_BUCKET.put(path, new Uint8Array([1, 2, 3]));
  return {
    id,
    path,
    url: `https://media.test/${path}`,
    type,
    mime_type: mime,
    original_filename: `file.${ext}`,
    size: 1234,
    width: type === "image" ? 800 : null,
    height: type === "image" ? 600 : null,
    duration_seconds: null,
    alt: null,
  };
}

export async function createLabel(ws: TestWorkspace, name: string, color = "#112233") {
  const res = await ws.api("POST", "/api/labels", { name, color });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string; color: string; created_at: string; updated_at: string };
}

/** Y-m-d H:i:s of an epoch ms. */
export function ymdHis(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

export function isoIn(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;
