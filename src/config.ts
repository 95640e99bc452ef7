import { z } from "zod";

/**
 * Every var and secret the Worker reads, parsed once per `env` object into a typed Config.
 * Defaults are safe for local use; production values come from wrangler.jsonc `vars` and `wrangler secret put`.
 * docs/configuration.md describes each entry.
 */
const bool = z.union([z.boolean(), z.string()]).transform((v) => v === true || v === "true" || v === "1");
const int = (def: number) => z.coerce.number().int().positive().default(def);
const url = (def: string) =>
  z
    .string()
    .default(def)
    .transform((v) => (v === "" ? def : v).replace(/\/+$/, ""));
const optionalSecret = z
  .string()
  .optional()
  .transform((v) => (v ? v : undefined));

export const configSchema = z.object({
  APP_ENV: z.enum(["production", "development", "test"]).default("production"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  /** Public base URL of stored media; empty means the Worker's own `/media` route on the request origin. */
  MEDIA_URL: z
    .string()
    .default("")
    .transform((v) => v.replace(/\/+$/, "")),
  /**
   * The Worker's public origin (`https://api.example.com`). Background work (cron, queue) has no request to take an
   * origin from; it builds media URLs from this when MEDIA_URL is empty.
   */
  PUBLIC_URL: z
    .string()
    .default("")
    .transform((v) => v.replace(/\/+$/, "")),
  API_RATE_LIMIT_PER_MINUTE: int(60),
  /** Workspace-wide throttle beside the per-key one: all of a workspace's keys together (docs/security.md). */
  API_WORKSPACE_RATE_LIMIT_PER_MINUTE: int(300),
  /**
   * Per-person throttle of a signed-in dashboard user (beside the workspace one): a page of the dashboard makes
   * several reads at once (the calendar reads a month page by page), so a person gets more than a key's 60.
   */
  SESSION_RATE_LIMIT_PER_MINUTE: int(300),
  MEDIA_IMAGE_MAX_BYTES: int(10 * 1024 * 1024),
  MEDIA_VIDEO_MAX_BYTES: int(1024 * 1024 * 1024),
  MEDIA_MAX_IMAGE_PIXELS: int(16_000_000),
  /** Pixel limit for WebP and interlaced PNG, which are decoded whole (≈8 bytes per pixel in the isolate). */
  MEDIA_MAX_FULL_DECODE_PIXELS: int(4_000_000),
  /**
   * Bytes of media buffers this isolate holds at once, all requests together (src/lib/memory-budget.ts,
   * docs/media.md "Memory budget"); the isolate has 128 MB.
   */
  MEDIA_MEMORY_BUDGET_BYTES: int(100 * 1024 * 1024),
  /** How long an upload waits for its share of the budget before 503 + Retry-After (0: not at all). */
  MEDIA_MEMORY_WAIT_SECONDS: z.coerce.number().int().min(0).default(20),
  MEDIA_FETCH_ALLOW_PRIVATE: bool.default(false),
  /**
   * Where outbound calls leave from (docs/security.md "Outbound calls"): `cloudflare` on Cloudflare's edge, whose
   * egress does not reach private networks; `resolve` (the default, for any other runtime) resolves every host name
   * over DNS over HTTPS first and refuses names with private addresses.
   */
  OUTBOUND_EGRESS: z.enum(["cloudflare", "resolve"]).default("resolve"),
  /** The DNS-over-HTTPS endpoint (JSON format) the guard resolves names with under `OUTBOUND_EGRESS=resolve`. */
  OUTBOUND_DOH_URL: url("https://cloudflare-dns.com/dns-query"),
  MEDIA_FETCH_TIMEOUT_SECONDS: int(20),
  UPLOAD_URL_TTL_SECONDS: int(900),
  UPLOAD_MAX_BYTES: int(52_428_800),
  UPLOAD_RATE_LIMIT_PER_MINUTE: int(10),
  X_API_URL: url("https://api.x.com"),
  LINKEDIN_API_URL: url("https://api.linkedin.com"),
  LINKEDIN_OAUTH_URL: url("https://www.linkedin.com"),
  /**
   * `LinkedIn-Version` of every `/rest/…` call (YYYYMM, or YYYYMM.NN for a patch release). LinkedIn supports each
   * monthly version for at least a year, then answers 426: move it before the sunset (docs/configuration.md).
   */
  LINKEDIN_API_VERSION: z
    .string()
    .default("202608")
    .transform((v) => v.trim() || "202608")
    .pipe(z.string().regex(/^\d{6}(\.\d{2})?$/)),
  /**
   * Graph API version of every Facebook and Instagram call (graph.facebook.com and graph.instagram.com, the Facebook
   * Login dialog): `vNN.N`. Meta keeps each version about two years; v26.0 (the newest, released 29 July 2026) has
   * no end date announced yet, v25.0 ends 29 July 2028 (developers.facebook.com/docs/graph-api/changelog/versions,
   * checked 2026-12-07; docs/platforms.md has the schedule). Move it before its end.
   */
  META_GRAPH_API_VERSION: z
    .string()
    .default("v26.0")
    .transform((v) => v.trim() || "v26.0")
    .pipe(z.string().regex(/^v\d+\.\d+$/)),
  /** Threads API version (graph.threads.net): its own numbering, `v1.0` the only one so far, no end date announced. */
  THREADS_API_VERSION: z
    .string()
    .default("v1.0")
    .transform((v) => v.trim() || "v1.0")
    .pipe(z.string().regex(/^v\d+\.\d+$/)),
  FACEBOOK_GRAPH_URL: url("https://graph.facebook.com"),
  INSTAGRAM_GRAPH_URL: url("https://graph.instagram.com"),
  THREADS_GRAPH_URL: url("https://graph.threads.net"),
  TIKTOK_API_URL: url("https://open.tiktokapis.com"),
  YOUTUBE_API_URL: url("https://www.googleapis.com"),
  GOOGLE_OAUTH_URL: url("https://oauth2.googleapis.com"),
  /**
   * The Google OAuth app (YouTube) is in "Testing" publishing status: Google's refresh tokens then end 7 days after
   * the consent, so every YouTube account's access ends a week after it connects (docs/account-health.md).
   */
  GOOGLE_OAUTH_APP_TESTING: bool.default(false),
  PINTEREST_API_URL: url("https://api.pinterest.com"),
  BLUESKY_APPVIEW_URL: url("https://public.api.bsky.app"),
  // Connect accounts (issue 18): where browsers are sent for consent (token endpoints use the API hosts above).
  X_AUTH_URL: url("https://x.com"),
  FACEBOOK_AUTH_URL: url("https://www.facebook.com"),
  INSTAGRAM_AUTH_URL: url("https://www.instagram.com"),
  /** Instagram Login's code exchange host (`/oauth/access_token`). */
  INSTAGRAM_OAUTH_URL: url("https://api.instagram.com"),
  THREADS_AUTH_URL: url("https://threads.com"),
  TIKTOK_AUTH_URL: url("https://www.tiktok.com"),
  GOOGLE_AUTH_URL: url("https://accounts.google.com"),
  PINTEREST_AUTH_URL: url("https://www.pinterest.com"),
  /** Origins (`https://app.example.com`) a connect flow may send the browser back to; comma-separated. */
  CONNECT_REDIRECT_ALLOWLIST: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((o) => o.trim().replace(/\/+$/, ""))
        .filter(Boolean),
    ),
  /** Lifetime of an OAuth `state` and of a pending account selection. */
  CONNECT_STATE_TTL_SECONDS: int(600),
  /** Default lifetime of a hosted connect link (a request may ask for 5 minutes up to 7 days). */
  CONNECT_LINK_TTL_SECONDS: int(86_400),
  /** Hosted pages: OAuth flow starts per minute, per client IP (IPv6: per /64) and per connect link. */
  CONNECT_STARTS_PER_MINUTE: int(20),
  /** Hosted pages: Bluesky app-password attempts per minute, per client IP (IPv6: per /64) and per connect link. */
  CONNECT_PASSWORD_TRIES_PER_MINUTE: int(5),
  /** Dashboard sign-in attempts per minute, per client IP (IPv6: per /64) and per email address. */
  SIGN_IN_TRIES_PER_MINUTE: int(5),
  /** The PLC directory that resolves did:plc identities to their DID documents (the account's actual PDS). */
  BLUESKY_PLC_URL: url("https://plc.directory"),
  /**
   * Post links on a network's web origin stored on another origin instead: comma-separated `from=to` pairs
   * (`https://x.com=http://127.0.0.1:8801`). Empty in production; `npm run dev` sets it for the sandbox networks so
   * a published post's link opens the sandbox's page of it (README "Local sandbox").
   */
  POST_LINK_ORIGINS: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((pair) =>
          pair
            .trim()
            .split("=")
            .map((o) => o.trim().replace(/\/+$/, "")),
        )
        .filter((pair): pair is [string, string] => pair.length === 2 && !!pair[0] && !!pair[1]),
    ),
  // Secrets
  TOKEN_ENCRYPTION_KEY: optionalSecret,
  /** Earlier TOKEN_ENCRYPTION_KEY values, comma-separated: still open what they sealed (rotation, docs/security.md). */
  TOKEN_ENCRYPTION_KEYS_PREVIOUS: z
    .string()
    .optional()
    .transform((v) =>
      (v ?? "")
        .split(",")
        .map((k) => k.trim())
        .filter((k) => k.length > 0),
    ),
  UPLOAD_SIGNING_KEY: optionalSecret,
  ADMIN_TOKEN: optionalSecret,
  /** Signs the dashboard session cookies (better-auth); people cannot sign in without it. */
  AUTH_SECRET: optionalSecret,
  X_CLIENT_ID: optionalSecret,
  X_CLIENT_SECRET: optionalSecret,
  LINKEDIN_CLIENT_ID: optionalSecret,
  LINKEDIN_CLIENT_SECRET: optionalSecret,
  FACEBOOK_APP_ID: optionalSecret,
  FACEBOOK_APP_SECRET: optionalSecret,
  TIKTOK_CLIENT_KEY: optionalSecret,
  TIKTOK_CLIENT_SECRET: optionalSecret,
  GOOGLE_CLIENT_ID: optionalSecret,
  GOOGLE_CLIENT_SECRET: optionalSecret,
  PINTEREST_CLIENT_ID: optionalSecret,
  PINTEREST_CLIENT_SECRET: optionalSecret,
  /** Instagram API with Instagram Login and Threads have their own app id and secret in the Meta dashboard. */
  INSTAGRAM_APP_ID: optionalSecret,
  INSTAGRAM_APP_SECRET: optionalSecret,
  THREADS_APP_ID: optionalSecret,
  THREADS_APP_SECRET: optionalSecret,
});

export type Config = z.infer<typeof configSchema>;

const cache = new WeakMap<object, Config>();

export function loadConfig(env: object): Config {
  let config = cache.get(env);
  if (!config) {
    const parsed = configSchema.safeParse(env);
    if (!parsed.success) {
      // Names only: values may be secrets.
      const names = parsed.error.issues.map((i) => i.path.join(".")).join(", ");
      throw new Error(`Invalid configuration: ${names}`);
    }
    config = parsed.data;
    cache.set(env, config);
  }
  return config;
}

/** Secrets that must be present before the feature using them runs; checked lazily with a clear error. */
export function requireSecret(config: Config, name: "TOKEN_ENCRYPTION_KEY" | "UPLOAD_SIGNING_KEY"): string {
  const value = config[name];
  if (!value) throw new Error(`Missing secret ${name}: set it with \`wrangler secret put ${name}\`.`);
  return value;
}
