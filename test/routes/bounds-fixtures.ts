import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { CATALOG } from "../../src/catalog/platforms";
import type { TestWorkspace } from "../support/harness";

/**
 * Test data at the request bounds (src/lib/bounds.ts): hundreds of accounts, labels and media written straight into
 * D1, each kind with one statement (ids and rows as one JSON array, like the code under test).
 */

export interface SeededAccount {
  id: string;
  platform: string;
  contentType: string;
  displayName: string;
  username: string;
}

/** `count` connected accounts cycling through the twelve platforms, each with its default content type. */
export async function seedAccounts(ws: TestWorkspace, count: number): Promise<SeededAccount[]> {
  const now = Date.now();
  const accounts = Array.from({ length: count }, (_, i) => {
    const spec = CATALOG[i % CATALOG.length]!;
    return {
      id: crypto.randomUUID(),
      platform: spec.platform,
      contentType: spec.default_content_type,
      displayName: `Account ${String(i).padStart(3, "0")}`,
      username: `user_${i}`,
    };
  });
  await env.DB.prepare(
    `INSERT INTO social_accounts (id, workspace_id, platform, display_name, username, avatar_url, is_active, status,
       meta, created_at, updated_at)
     SELECT json_extract(value, '$[0]'), ?, json_extract(value, '$[1]'), json_extract(value, '$[2]'),
       json_extract(value, '$[3]'), NULL, 1, 'connected', '{}', ?, ? FROM json_each(?)`,
  )
    .bind(ws.workspaceId, now, now, JSON.stringify(accounts.map((a) => [a.id, a.platform, a.displayName, a.username])))
    .run();
  return accounts;
}

/** `count` labels named `Label 000` … in name order. */
export async function seedLabels(ws: TestWorkspace, count: number, workspaceId = ws.workspaceId) {
  const now = Date.now();
  const labels = Array.from({ length: count }, (_, i) => ({
    id: crypto.randomUUID(),
    name: `Label ${String(i).padStart(3, "0")}`,
    color: "#112233",
  }));
  await env.DB.prepare(
    `INSERT INTO labels (id, workspace_id, name, color, created_at, updated_at)
     SELECT json_extract(value, '$[0]'), ?, json_extract(value, '$[1]'), '#112233', ?, ? FROM json_each(?)`,
  )
    .bind(workspaceId, now, now, JSON.stringify(labels.map((l) => [l.id, l.name])))
    .run();
  return labels;
}

/** `count` JPEG media rows of the workspace (rows only; nothing here reads their bytes). */
export async function seedMedia(ws: TestWorkspace, count: number) {
  const now = Date.now();
  const ids = Array.from({ length: count }, () => crypto.randomUUID());
  await env.DB.prepare(
    `INSERT INTO media (id, workspace_id, path, type, mime_type, original_filename, size, width, height, created_at)
     SELECT value, ?, 'medias/' || value || '.jpg', 'image', 'image/jpeg', 'file.jpg', 1234, 800, 600, ?
     FROM json_each(?)`,
  )
    .bind(ws.workspaceId, now, JSON.stringify(ids))
    .run();
  return ids;
}

/** The Media resource of a row seeded by `seedMedia`. */
export const seededMedia = (id: string) => ({
  id,
  path: `medias/${id}.jpg`,
  url: `https://media.test/medias/${id}.jpg`,
  type: "image",
  mime_type: "image/jpeg",
  original_filename: "file.jpg",
  size: 1234,
  width: 800,
  height: 600,
  duration_seconds: null,
  alt: null,
});

/** The PostPlatform resource of a fresh row (pending, enabled) for a seeded account. */
export const pendingPlatform = (account: SeededAccount, extra: Record<string, unknown> = {}) => ({
  id: expect.stringMatching(/^[0-9a-f-]{36}$/),
  platform: account.platform,
  content_type: account.contentType,
  status: "pending",
  enabled: true,
  platform_url: null,
  published_at: null,
  error_message: null,
  display_name: account.displayName,
  display_username: account.username,
  display_avatar: "",
  social_account: {
    id: account.id,
    platform: account.platform,
    display_name: account.displayName,
    username: account.username,
    is_active: true,
    status: "connected",
  },
  meta: {},
  platform_post_id: null,
  ...extra,
});

/** The Label resource of a label seeded by `seedLabels`. */
export const seededLabel = (label: { id: string; name: string; color: string }) => ({
  ...label,
  created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
  updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/),
});

/** D1 statements the request ran, from the `Server-Timing` header every non-production response carries. */
export function statementsOf(res: { headers: Headers }): number {
  const m = /d1;desc="(\d+) statements"/.exec(res.headers.get("Server-Timing") ?? "");
  if (!m) throw new Error("no Server-Timing d1 entry");
  return Number(m[1]);
}
