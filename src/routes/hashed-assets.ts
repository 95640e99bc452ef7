import type { Context } from "hono";
import type { App, AppEnv } from "../types";

/**
 * Files whose names change with their content: the dashboard's build (`/app/assets/*`, scripts/build-web.mjs) and
 * the vendored API reference (`/api/docs/assets/*`, versioned in its name). A file that is there is cached for good;
 * a name that is not there (an old page asking for a file a newer build replaced) is a 404 nobody keeps.
 *
 * The Worker serves them from the static assets (`assets.run_worker_first` in wrangler.jsonc sends these paths to
 * it) instead of Workers Static Assets answering alone: the static assets apply `public/_headers` to their own 404s
 * too, so a year-long `immutable` rule for the folder also made a browser or a CDN keep a miss for a year
 * (security review 4, issue 35). The lookup passes the request's conditional headers, so a revalidation still gets
 * a 304.
 */
const HASHED_ASSET_PREFIXES = ["/app/assets/", "/api/docs/assets/"] as const;

const HASHED_ASSET_HEADERS: Record<string, string> = {
  "Cache-Control": "public, max-age=31536000, immutable",
  "X-Content-Type-Options": "nosniff",
  "Cross-Origin-Resource-Policy": "same-origin",
};

async function serveHashedAsset(c: Context<AppEnv>): Promise<Response> {
  const asset = await c.env.ASSETS.fetch(new Request(c.req.url, { headers: conditionalHeaders(c.req.raw.headers) }));
  if (asset.status === 200 || asset.status === 304) {
    const res = new Response(asset.body, asset);
    for (const [name, value] of Object.entries(HASHED_ASSET_HEADERS)) res.headers.set(name, value);
    return res;
  }
  await asset.body?.cancel();
  // The app's own 404 (src/middleware/errors.ts), which nobody may keep.
  const missing = await c.notFound();
  missing.headers.set("Cache-Control", "no-store");
  missing.headers.set("X-Content-Type-Options", "nosniff");
  return missing;
}

/** Only what a revalidation needs: no cookie or credential goes to the asset lookup. */
function conditionalHeaders(from: Headers): Headers {
  const headers = new Headers();
  for (const name of ["If-None-Match", "If-Modified-Since", "Accept-Encoding"]) {
    const value = from.get(name);
    if (value !== null) headers.set(name, value);
  }
  return headers;
}

export function registerHashedAssets(app: App) {
  for (const prefix of HASHED_ASSET_PREFIXES) app.get(`${prefix}*`, serveHashedAsset);
}
