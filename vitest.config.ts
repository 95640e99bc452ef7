import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { StallWatchdog } from "./test/support/stall-watchdog.ts";

/** Every `*.test.ts` under `dir`, as sorted paths relative to the project root (so new files join by themselves). */
function testFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".test.ts"))
    .map((f) => path.posix.join(dir, f.split(path.sep).join("/")))
    .sort();
}

/**
 * A file that runs work spanning every workspace — the Worker's cron (`scheduled()`, the `tick()` helpers), a
 * storage sweep, our OAuth app on a Mastodon instance (registered once per instance, kept in D1, while each file
 * brings a fake instance of its own) — needs storage no other file wrote to: what they left would change what it
 * sees. Such a file declares it on its first line, `// fresh storage: <why>`; the declaration, not a guess from the
 * file's text, decides. These files share one runtime (project `workerd-fresh`), and test/support/fresh-storage.ts
 * empties D1, R2 and KV before each of them: a runtime per file cost 4–13 s each. `CROSS_WORKSPACE` only checks the
 * declaration: a file that calls one of those helpers without it stops the run before any test starts (see
 * docs/testing.md).
 */
const FRESH_STORAGE_DECLARATION = /^\/\/ fresh storage: \S/;
const CROSS_WORKSPACE = /\.scheduled!?\(|\btick\(|\bcronTick\(|\bsweep[A-Z]\w*\(|\bfakeMastodonOAuth\(/;

/**
 * The other files share runtimes, `FILES_PER_RUNTIME` consecutive files (sorted by path, so a directory stays
 * together) to one. Starting a runtime and importing the Worker into it costs 4–13 s, paid once per runtime
 * instead of once per file; each test works in a workspace of its own, so files sharing storage do not see each
 * other. Tests reach the Worker through test/support/worker-fetch.ts, not the pool's loopback, whose requests cost
 * more the more a runtime has served. What still goes through it (queue deliveries, a few files about the
 * runtime's own request handling) slows a long-lived runtime a little: the whole vitest part on a quiet machine took
 * 470 s at 8 files per runtime, 403 s at 16, 364 s at 32, and over 480 s at 64 (docs/testing.md, fourth round).
 */
const FILES_PER_RUNTIME = Number(process.env.VITEST_FILES_PER_RUNTIME ?? 32);

/**
 * Runtimes at once. Two on the 2-core machine: `npm test` (vitest beside the browser, PDS and sdk parts) took 364 s
 * wall with 2 against 407 s with one runtime per project at a time, one after the other on the same machine (docs/testing.md,
 * fifth round); vitest gives each worker its own runtime, so a project's files are split between two.
 */
const MAX_WORKERS = Number(process.env.VITEST_MAX_WORKERS ?? 2);
const SETUP = "./test/support/setup.ts";
const all = testFiles("test");
const sources = new Map(all.map((f) => [f, readFileSync(f, "utf8")]));
const freshStorage = all.filter((f) => FRESH_STORAGE_DECLARATION.test(sources.get(f) ?? ""));
const undeclared = all.filter((f) => !freshStorage.includes(f) && CROSS_WORKSPACE.test(sources.get(f) ?? ""));
if (undeclared.length > 0) {
  throw new Error(
    `These files run the cron, a sweep or fakeMastodonOAuth() but do not declare fresh storage; add a first line ` +
      `"// fresh storage: <why>" to each (docs/testing.md):\n  ${undeclared.join("\n  ")}`,
  );
}
const shared = all.filter((f) => !freshStorage.includes(f));
const chunks: string[][] = [];
for (let i = 0; i < shared.length; i += FILES_PER_RUNTIME) chunks.push(shared.slice(i, i + FILES_PER_RUNTIME));

export default defineConfig({
  plugins: [
    cloudflareTest(async () => ({
      wrangler: { configPath: "./wrangler.jsonc" },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations(path.resolve("migrations")),
          APP_ENV: "test",
          LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
          MEDIA_URL: "https://media.test",
          MEDIA_FETCH_ALLOW_PRIVATE: "false",
          // The fakes are in-process origins with made-up names: the suite runs as the edge does (no name
          // resolution); test/lib/outbound-dns.test.ts turns resolution on against a fake DoH server.
          OUTBOUND_EGRESS: "cloudflare",
          TOKEN_ENCRYPTION_KEY: "test-token-encryption-key-not-secret",
          UPLOAD_SIGNING_KEY: "test-upload-signing-key-not-secret",
          ADMIN_TOKEN: "test-admin-token",
          AUTH_SECRET: "test-auth-secret-not-secret-0123456789abcdef",
          // A signed-in person's window differs from a key's 60, so test/routes/people/roles.test.ts tells them apart.
          SESSION_RATE_LIMIT_PER_MINUTE: "90",
          // Every platform host points at a fake origin served by test/support/fake-fetch.ts.
          X_API_URL: "https://x.fake",
          LINKEDIN_API_URL: "https://linkedin.fake",
          LINKEDIN_OAUTH_URL: "https://linkedin-oauth.fake",
          FACEBOOK_GRAPH_URL: "https://facebook.fake",
          INSTAGRAM_GRAPH_URL: "https://instagram.fake",
          THREADS_GRAPH_URL: "https://threads.fake",
          TIKTOK_API_URL: "https://tiktok.fake",
          YOUTUBE_API_URL: "https://youtube.fake",
          GOOGLE_OAUTH_URL: "https://google-oauth.fake",
          PINTEREST_API_URL: "https://pinterest.fake",
          BLUESKY_APPVIEW_URL: "https://bsky-appview.fake",
          BLUESKY_PLC_URL: "https://plc.fake",
          X_CLIENT_ID: "x-client",
          X_CLIENT_SECRET: "x-secret",
          LINKEDIN_CLIENT_ID: "li-client",
          LINKEDIN_CLIENT_SECRET: "li-secret",
          FACEBOOK_APP_ID: "fb-app",
          FACEBOOK_APP_SECRET: "fb-secret",
          TIKTOK_CLIENT_KEY: "tt-key",
          TIKTOK_CLIENT_SECRET: "tt-secret",
          GOOGLE_CLIENT_ID: "g-client",
          GOOGLE_CLIENT_SECRET: "g-secret",
          PINTEREST_CLIENT_ID: "pin-client",
          PINTEREST_CLIENT_SECRET: "pin-secret",
          INSTAGRAM_APP_ID: "ig-app",
          INSTAGRAM_APP_SECRET: "ig-secret",
          THREADS_APP_ID: "th-app",
          THREADS_APP_SECRET: "th-secret",
          // Consent pages of the fake OAuth providers (test/support/oauth).
          X_AUTH_URL: "https://x-auth.fake",
          FACEBOOK_AUTH_URL: "https://facebook-auth.fake",
          INSTAGRAM_AUTH_URL: "https://instagram-auth.fake",
          INSTAGRAM_OAUTH_URL: "https://instagram-oauth.fake",
          THREADS_AUTH_URL: "https://threads-auth.fake",
          TIKTOK_AUTH_URL: "https://tiktok-auth.fake",
          GOOGLE_AUTH_URL: "https://google-auth.fake",
          PINTEREST_AUTH_URL: "https://pinterest-auth.fake",
          PUBLIC_URL: "https://api.test",
          CONNECT_REDIRECT_ALLOWLIST: "https://app.example,https://other.example",
        },
      },
    })),
  ],
  test: {
    projects: [
      ...chunks.map((include, i) => ({
        extends: true as const,
        test: {
          name: `workerd-${i + 1}`,
          include,
          isolate: false,
          setupFiles: [SETUP],
          // All shared runs are one group: MAX_WORKERS runtimes serve them side by side.
          sequence: { groupOrder: 0 },
        },
      })),
      {
        extends: true as const,
        test: {
          name: "workerd-fresh",
          include: freshStorage,
          isolate: false,
          setupFiles: [SETUP, "./test/support/fresh-storage.setup.ts"],
          // After every shared run: nothing else writes while these files empty and use the storage.
          sequence: { groupOrder: 1 },
        },
      },
    ],
    maxWorkers: MAX_WORKERS,
    globalSetup: ["./test/support/build-web.global.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Console calls inside workerd go straight to its output, not through Vitest's onUserConsoleLog RPC: a line
    // logged from another I/O context (a queue consumer, a waitUntil) during a file's last round trip is parked
    // by @cloudflare/vitest-pool-workers 0.23 and the run never finishes (cloudflare/workers-sdk#15498, #15719).
    disableConsoleIntercept: true,
    // ...and should the run stall for another reason, fail it in minutes naming the file, not at CI's limit.
    reporters: ["default", new StallWatchdog(Number(process.env.VITEST_STALL_SECONDS ?? 480) * 1000)],
  },
});
