// fresh storage: the re-seal sweeps read (and rewrite) every sealed value of the database, under keys of this file.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config";
import { createDb } from "../../src/db/client";
import { encryptJson, sealingKeyId } from "../../src/lib/crypto";
import { resealSecrets } from "../../src/services/sealing/reseal-secrets";
import { SWEEP_REST_MS } from "../../src/services/sealing/sweep-marks";
import { resealCredentials } from "../../src/services/social-accounts/reseal-credentials";
import { createTestWorkspace } from "../support/harness";

/**
 * Migration 0023: a re-seal sweep that finds nothing left under the current key rests for a day instead of reading
 * every sealed table each minute; a value sealed under an older key meanwhile (a Worker still on it during a deploy)
 * is found by the next look, and a new key starts the sweeps at once.
 */
const KEY_A = env.TOKEN_ENCRYPTION_KEY as string;

function contextAt(clock: { now: number }, key: string) {
  const workerEnv = { ...env, TOKEN_ENCRYPTION_KEY: key, TOKEN_ENCRYPTION_KEYS_PREVIOUS: KEY_A } as Cloudflare.Env;
  return {
    env: workerEnv,
    db: createDb(env.DB),
    config: loadConfig(workerEnv),
    now: () => clock.now,
    requestId: "test",
    webhookOutbox: { recorded: false },
    origin: "https://api.test",
    waitUntil: () => {},
  };
}

/** Runs both sweeps until a tick re-seals nothing; the values each re-sealed. */
async function sweepAll(ctx: ReturnType<typeof contextAt>) {
  let secrets = 0;
  let credentials = 0;
  for (let i = 0; i < 50; i++) {
    const [s, c] = [await resealSecrets(ctx), await resealCredentials(ctx)];
    secrets += s;
    credentials += c;
    if (s === 0 && c === 0) break;
  }
  return { secrets, credentials };
}

describe("re-seal sweeps rest once nothing is left", () => {
  it("rest a day under the same key, find what was sealed under an older one after it, and restart for a new key", async () => {
    const ws = await createTestWorkspace();
    const clock = { now: Date.now() };
    const keyB = `sweep-marks-key-b-${crypto.randomUUID()}`;
    const underA = async () => {
      const id = crypto.randomUUID();
      await env.DB.batch([
        env.DB.prepare(
          "INSERT INTO oauth_states (id, workspace_id, platform, sealed, expires_at, created_at) VALUES (?, ?, 'x', ?, ?, ?)",
        ).bind(id, ws.workspaceId, await encryptJson(KEY_A, { code_verifier: "v" }), clock.now + 600_000, clock.now),
        env.DB.prepare(
          `INSERT INTO social_accounts (id, workspace_id, platform, platform_user_id, display_name, username, is_active,
             status, credentials, meta, created_at, updated_at)
           VALUES (?, ?, 'x', ?, 'X', 'x', 1, 'connected', ?, '{}', ?, ?)`,
        ).bind(id, ws.workspaceId, id, await encryptJson(KEY_A, { access_token: "t" }), clock.now, clock.now),
      ]);
      return id;
    };
    const sealedAs = async (id: string) => {
      const row = await env.DB.prepare(
        "SELECT (SELECT sealed FROM oauth_states WHERE id = ?1) AS state, (SELECT credentials FROM social_accounts WHERE id = ?1) AS credentials",
      )
        .bind(id)
        .first<{ state: string; credentials: string }>();
      const kid = (v: string) => (v.startsWith("v1.") ? "v1" : v.split(".")[1]);
      return { state: kid(row!.state), credentials: kid(row!.credentials) };
    };
    const kidB = await sealingKeyId(keyB);

    const first = await underA();
    const swept = await sweepAll(contextAt(clock, keyB));
    expect(swept.secrets).toBeGreaterThanOrEqual(1);
    expect(swept.credentials).toBeGreaterThanOrEqual(1);
    expect(await sealedAs(first)).toEqual({ state: kidB, credentials: kidB });
    const marks = await env.DB.prepare("SELECT name, key_id FROM sweep_marks ORDER BY name").all();
    expect(marks.results).toEqual([
      { name: "reseal-credentials", key_id: kidB },
      { name: "reseal-secrets", key_id: kidB },
    ]);

    // Sealed under A after the sweep finished: the sweeps rest, it waits…
    const late = await underA();
    clock.now += SWEEP_REST_MS - 60_000;
    expect(await sweepAll(contextAt(clock, keyB))).toEqual({ secrets: 0, credentials: 0 });
    expect(await sealedAs(late)).toEqual({ state: "v1", credentials: "v1" });
    // …until the day is over.
    clock.now += 120_000;
    expect(await sweepAll(contextAt(clock, keyB))).toEqual({ secrets: 1, credentials: 1 });
    expect(await sealedAs(late)).toEqual({ state: kidB, credentials: kidB });

    // A new key: the sweeps start at once.
    const keyC = `sweep-marks-key-c-${crypto.randomUUID()}`;
    const kidC = await sealingKeyId(keyC);
    const toC = { ...contextAt(clock, keyC) };
    toC.config = loadConfig({
      ...env,
      TOKEN_ENCRYPTION_KEY: keyC,
      TOKEN_ENCRYPTION_KEYS_PREVIOUS: keyB,
    } as Cloudflare.Env);
    const again = await sweepAll(toC);
    expect(again.secrets).toBeGreaterThanOrEqual(1);
    expect(await sealedAs(late)).toEqual({ state: kidC, credentials: kidC });
  });
});
