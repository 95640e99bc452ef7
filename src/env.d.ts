// Secrets are not in wrangler.jsonc, so `wrangler types` cannot see them; they are declared here.
declare namespace Cloudflare {
  interface Env {
    TOKEN_ENCRYPTION_KEY?: string;
    UPLOAD_SIGNING_KEY?: string;
    ADMIN_TOKEN?: string;
  }
}
