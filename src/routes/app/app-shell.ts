import type { Context } from "hono";
import type { App, AppEnv } from "../../types";

/**
 * The dashboard (issue 27) under `/app`: a Preact app built by `npm run build:web` (scripts/build-web.mjs) into
 * `public/app/`. Its content-hashed files (`/app/assets/*`) are served from the static assets by src/routes/hashed-assets.ts;
 * every other `/app` path is a client-side route and answers the app's `index.html` from here, with the headers
 * below (`assets.run_worker_first` in wrangler.jsonc sends those paths to the Worker first, so `/app/index.html`
 * itself gets them too). `/` sends a browser to the dashboard.
 * https://developers.cloudflare.com/workers/static-assets/routing/worker-script/
 */
export const APP_BASE = "/app";

/** The page the static assets answer for `/app/index.html` (auto-trailing-slash html handling serves it at `/app/`). */
const SHELL_ASSET_PATH = `${APP_BASE}/`;

/**
 * Scripts, styles and requests only from this origin (no inline script or style), images also from the media
 * origin when media are served from elsewhere (`MEDIA_URL`), no plugins, no framing, no `<base>`.
 */
export function appShellCsp(mediaOrigin: string | null): string {
  const media = mediaOrigin ? ` ${mediaOrigin}` : "";
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src 'self' data: blob:${media}`,
    `media-src 'self' blob:${media}`,
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function appShellHeaders(mediaOrigin: string | null): Record<string, string> {
  return {
    "Content-Type": "text/html; charset=utf-8",
    // The page names its content-hashed scripts: it is revalidated every time, they are cached for good.
    "Cache-Control": "no-cache",
    "Content-Security-Policy": appShellCsp(mediaOrigin),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
  };
}

function mediaOrigin(c: Context<AppEnv>): string | null {
  const url = c.get("service").config.MEDIA_URL;
  if (!url) return null;
  try {
    const origin = new URL(url).origin;
    return origin === new URL(c.req.url).origin ? null : origin;
  } catch {
    return null;
  }
}

async function serveShell(c: Context<AppEnv>): Promise<Response> {
  const asset = await c.env.ASSETS.fetch(new Request(new URL(SHELL_ASSET_PATH, c.req.url)));
  if (!asset.ok) {
    return c.text("The dashboard is not built: run `npm run build:web` (npm run dev does it for you).", 503, {
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    });
  }
  return c.body(await asset.text(), 200, appShellHeaders(mediaOrigin(c)));
}

export function registerAppShell(app: App) {
  app.get("/", (c) => c.redirect(APP_BASE, 302));
  app.get(APP_BASE, serveShell);
  // After src/routes/hashed-assets.ts (app.ts): a hashed file that is not there is a 404, not the page.
  app.get(`${APP_BASE}/*`, serveShell);
}
