import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-pool-workers";
import { defineConfig } from "vitest/config";
import { StallWatchdog } from "./test/support/stall-watchdog.ts";

export default defineConfig({
  plugins: [
    cloudflareTest(async () => ({
      wrangler: { configPath: "./wrangler.jsonc" },
      miniflare: {
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations(path.resolve("migrations")),
          APP_ENV: "test",
          LOG_LEVEL: "silent",
          MEDIA_URL: "https://media.test",
          MEDIA_FETCH_ALLOW_PRIVATE: "false",
          // The fakes are in-process origins with made-up names: the suite runs as the edge does (no name
          // resolution); test/lib/outbound-dns.test.ts turns resolution on against a fake DoH server.
          OUTBOUND_EGRESS: "cloudflare",
          TOKEN_ENCRYPTION_KEY: "test-token-encryption-key-not-secret",
          UPLOAD_SIGNING_KEY: "test-upload-signing-key-not-secret",
          ADMIN_TOKEN: "test-admin-token",
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
    include: ["test/**/*.test.ts"],
    setupFiles: ["./test/support/setup.ts"],
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
