// One local stack (sandbox/start.mjs `startStack()`: the sandbox networks, D1 migrations, `wrangler dev`) for every
// browser test that needs no configuration of its own. Starting a stack costs 30–55 s on the CI machine's two
// cores, and the browser part used to start one per file (docs/testing.md).
//
// `node --test --test-global-setup=test/e2e/shared-stack.mjs` (scripts/test.mjs passes it) runs `globalSetup()` once,
// in the runner's process, before any file; the files, each in a process of its own, reach the stack through
// `sharedStack()`, which reads what `globalSetup()` left in the environment. Each test makes a workspace of its own
// through the admin route, so files sharing the stack do not see each other's posts (the cron publishes all of them,
// as it does in production). The stack's vars are the union of what those files asked for: the sandbox networks,
// loopback media pulls, and per-minute limits high enough for a browser opening a dozen pages a second.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { startStack } from "../../sandbox/start.mjs";
import { freePort } from "./kit.mjs";

export const ADMIN_TOKEN = "e2e-admin-token";
const ENV = "E2E_SHARED_STACK";

let stack;

/** The shared stack's vars on `base`: the union of what the files sharing it asked for. */
export function stackVars(base) {
  return {
    APP_ENV: "development",
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? "warn",
    PUBLIC_URL: base,
    MEDIA_URL: `${base}/media`,
    MEDIA_FETCH_ALLOW_PRIVATE: "true",
    OUTBOUND_EGRESS: "resolve",
    TOKEN_ENCRYPTION_KEY: "e2e-token-encryption-key",
    UPLOAD_SIGNING_KEY: "e2e-upload-signing-key",
    AUTH_SECRET: "e2e-auth-secret-e2e-auth-secret-e2e-auth-secret",
    ADMIN_TOKEN,
    // The tests sign in many times from one address and poll their posts until they settle.
    SIGN_IN_TRIES_PER_MINUTE: "1000",
    API_RATE_LIMIT_PER_MINUTE: "100000",
    SESSION_RATE_LIMIT_PER_MINUTE: "100000",
    API_WORKSPACE_RATE_LIMIT_PER_MINUTE: "100000",
  };
}

/** A stack with `stackVars` and a state directory of its own; `close()` stops it and removes the directory. */
export async function startE2eStack() {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "e2e-stack-"));
  const started = await startStack({ port, persistTo: dir, vars: stackVars(`http://127.0.0.1:${port}`) }).catch(
    (err) => {
      rmSync(dir, { recursive: true, force: true });
      throw err;
    },
  );
  return {
    ...started,
    state: dir,
    async close() {
      await started.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function globalSetup() {
  stack = await startE2eStack();
  const { base } = stack;
  // wrangler's output, for the files' failure messages (they run in other processes).
  const logFile = path.join(stack.state, "wrangler.log");
  writeFileSync(logFile, stack.log());
  for (const stream of [stack.child.stdout, stack.child.stderr]) stream?.on("data", (d) => appendFileSync(logFile, d));
  process.env[ENV] = JSON.stringify({ base, networks: stack.sandbox.networks, sandboxed: stack.sandboxed, logFile });
}

export async function globalTeardown() {
  await stack?.close();
}

/** Whether this process runs under the global setup (`npm test`), so `sharedStack()` answers. */
export const hasSharedStack = () => Boolean(process.env[ENV]);

/**
 * The shared stack, shaped as `startStack()`'s answer ({base, sandbox: {networks}, sandboxed, cron(), log()}); its
 * `close()` does nothing (globalTeardown stops it). Throws when the file runs without the global setup.
 */
export function sharedStack() {
  const raw = process.env[ENV];
  if (!raw) {
    throw new Error(
      "no shared stack: run browser tests through npm test (`npm test -- test/e2e/<file>.test.mjs`), which passes " +
        "--test-global-setup=test/e2e/shared-stack.mjs",
    );
  }
  const { base, networks, sandboxed, logFile } = JSON.parse(raw);
  return {
    base,
    sandbox: { networks },
    sandboxed,
    /** The Worker's cron, as Cloudflare would fire it (wrangler dev does not by itself). */
    cron: () => fetch(`${base}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*`),
    log: () => readFileSync(logFile, "utf8").slice(-20_000),
    close: async () => {},
  };
}

/** A new workspace on the shared stack (the admin route), with an owner when `owner` is given: its API answer. */
export async function createWorkspace(base, name, owner) {
  const res = await fetch(`${base}/api/admin/workspaces`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/json" },
    body: JSON.stringify(owner ? { name, owner } : { name }),
  });
  const body = await res.json().catch(() => null);
  return { status: res.status, body };
}
