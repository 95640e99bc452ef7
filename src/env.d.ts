// Secrets are not in wrangler.jsonc, so `wrangler types` cannot see them; they are declared here, one per secret in
// .dev.vars.example (test/e2e/deploy-drift.test.mjs checks the two lists agree). `npm run deploy` generates the first
// three when missing; the rest are optional and set by hand (docs/connect.md, docs/security.md).
declare namespace Cloudflare {
  interface Env {
    TOKEN_ENCRYPTION_KEY?: string;
    TOKEN_ENCRYPTION_KEYS_PREVIOUS?: string;
    UPLOAD_SIGNING_KEY?: string;
    ADMIN_TOKEN?: string;
    AUTH_SECRET?: string;
    X_CLIENT_ID?: string;
    X_CLIENT_SECRET?: string;
    LINKEDIN_CLIENT_ID?: string;
    LINKEDIN_CLIENT_SECRET?: string;
    FACEBOOK_APP_ID?: string;
    FACEBOOK_APP_SECRET?: string;
    TIKTOK_CLIENT_KEY?: string;
    TIKTOK_CLIENT_SECRET?: string;
    GOOGLE_CLIENT_ID?: string;
    GOOGLE_CLIENT_SECRET?: string;
    PINTEREST_CLIENT_ID?: string;
    PINTEREST_CLIENT_SECRET?: string;
    INSTAGRAM_APP_ID?: string;
    INSTAGRAM_APP_SECRET?: string;
    THREADS_APP_ID?: string;
    THREADS_APP_SECRET?: string;
  }
}
