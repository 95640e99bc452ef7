import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import { createDb } from "../../src/db/client";
import { encryptJson, openJson, sealingKeyId, sealJson } from "../../src/lib/crypto";
import { openCredentials } from "../../src/services/social-accounts/credentials";
import { resealCredentials } from "../../src/services/social-accounts/reseal-credentials";
import { createTestWorkspace } from "../support/harness";

const OLD = "old-token-encryption-key";
const NEW = "new-token-encryption-key";
const failure = (p: Promise<unknown>) =>
  p.then(
    () => "opened",
    (e) => (e instanceof Error ? e.name : String(e)),
  );

describe("sealed credentials: bound to their row, carrying a key id", () => {
  it("a ciphertext opens only for the row it was sealed for", async () => {
    const keys = { current: NEW, previous: [] };
    const sealed = await sealJson(keys, "social_accounts:a", { access_token: "t" });
    expect(sealed).toMatch(new RegExp(`^v2\\.${await sealingKeyId(NEW)}\\.[\\w-]+\\.[\\w-]+$`));
    expect(await openJson(keys, "social_accounts:a", sealed)).toEqual({ access_token: "t" });
    expect(await failure(openJson(keys, "social_accounts:b", sealed))).toBe("OperationError");
  });

  it("rotation: values under a previous key open while it is listed, and not after", async () => {
    const sealedOld = await sealJson({ current: OLD, previous: [] }, "social_accounts:a", { access_token: "t" });
    const rotated = { current: NEW, previous: [OLD] };
    expect(await openJson(rotated, "social_accounts:a", sealedOld)).toEqual({ access_token: "t" });
    expect(await failure(openJson({ current: NEW, previous: [] }, "social_accounts:a", sealedOld))).toBe("Error");
  });

  it("legacy v1 ciphertexts (no binding, no key id) still open, under the current or a previous key", async () => {
    const legacy = await encryptJson(OLD, { access_token: "legacy" });
    expect(legacy).toMatch(/^v1\./);
    expect(await openJson({ current: OLD, previous: [] }, "social_accounts:x", legacy)).toEqual({
      access_token: "legacy",
    });
    expect(await openJson({ current: NEW, previous: [OLD] }, "social_accounts:x", legacy)).toEqual({
      access_token: "legacy",
    });
  });

  it("the cron re-seals legacy and old-key rows under the current key, bound to their row; expiring rows wait", async () => {
    const ws = await createTestWorkspace();
    const now = Date.now();
    const insert = async (id: string, credentials: string, tokenExpiresAt: number | null) =>
      env.DB.prepare(
        `INSERT INTO social_accounts (id, workspace_id, platform, platform_user_id, display_name, username, is_active,
           status, credentials, token_expires_at, meta, created_at, updated_at)
         VALUES (?, ?, 'x', ?, 'X', 'x', 1, 'connected', ?, ?, '{}', ?, ?)`,
      )
        .bind(id, ws.workspaceId, id, credentials, tokenExpiresAt, now, now)
        .run();
    const legacyId = crypto.randomUUID();
    const oldKeyId = crypto.randomUUID();
    const expiringId = crypto.randomUUID();
    await insert(legacyId, await encryptJson(OLD, { access_token: "legacy" }), null);
    await insert(
      oldKeyId,
      await sealJson({ current: OLD, previous: [] }, `social_accounts:${oldKeyId}`, { access_token: "old" }),
      now + 86_400_000,
    );
    await insert(expiringId, await encryptJson(OLD, { access_token: "soon" }), now + 60_000);

    const config = { ...loadConfig(env), TOKEN_ENCRYPTION_KEY: NEW, TOKEN_ENCRYPTION_KEYS_PREVIOUS: [OLD] };
    const ctx = {
      env,
      db: createDb(env.DB),
      config,
      now: () => now,
      requestId: "test",
      webhookOutbox: { recorded: false },
      origin: "https://api.test",
      waitUntil: () => {},
    };
    expect(await resealCredentials(ctx)).toBeGreaterThanOrEqual(2);
    const kid = await sealingKeyId(NEW);
    const read = async (id: string) =>
      (await env.DB.prepare("SELECT credentials FROM social_accounts WHERE id = ?")
        .bind(id)
        .first<{ credentials: string }>())!.credentials;
    expect(await read(legacyId)).toMatch(new RegExp(`^v2\\.${kid}\\.`));
    expect(await read(oldKeyId)).toMatch(new RegExp(`^v2\\.${kid}\\.`));
    expect(await read(expiringId)).toMatch(/^v1\./);
    // Now they open with the new key alone, and only as their own row.
    const newOnly = { config: { ...config, TOKEN_ENCRYPTION_KEYS_PREVIOUS: [] } };
    expect(await openCredentials(newOnly, legacyId, await read(legacyId))).toEqual({ access_token: "legacy" });
    expect(await openCredentials(newOnly, oldKeyId, await read(oldKeyId))).toEqual({ access_token: "old" });
    expect(await failure(openCredentials(newOnly, legacyId, await read(oldKeyId)))).toBe("OperationError");
  });

  it("connecting an account seals its credentials bound to the new row", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/social-accounts", {
      platform: "x",
      display_name: "X",
      username: "x",
      platform_user_id: "1",
      credentials: { access_token: "secret-at" },
    });
    expect(res.status).toBe(201);
    const row = await env.DB.prepare("SELECT credentials FROM social_accounts WHERE id = ?")
      .bind(res.body.id)
      .first<{ credentials: string }>();
    const ctx = { config: loadConfig(env) };
    expect(await openCredentials(ctx, res.body.id, row!.credentials)).toMatchObject({ access_token: "secret-at" });
    expect(await failure(openCredentials(ctx, crypto.randomUUID(), row!.credentials))).toBe("OperationError");
  });
});
