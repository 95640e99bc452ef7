import type { Context } from "hono";

/**
 * The interactive API reference (`GET /api/docs`, issue 25 finding 10): Scalar's standalone bundle, vendored at a
 * fixed version in `public/api/docs/assets/` and served by Workers Static Assets from this Worker's own origin — no
 * third-party origin is contacted at run time. The page holds no inline script: the bundle reads its settings from
 * the `application/json` element (which does not execute) and mounts itself. `scripts/vendor-scalar.mjs` replaces
 * the bundle and prints the values below.
 */
export const API_REFERENCE_SCRIPT = "/api/docs/assets/scalar-api-reference-1.72.1.js";
/** SHA-384 of the vendored file (Subresource Integrity): a changed file is refused by the browser. */
export const API_REFERENCE_SCRIPT_INTEGRITY = "sha384-U11tb2XnKvmwt8RlTvnwUnYgrN+ur4Xyh9htLhjajWNR/Oyl5AX5DEz00qRmlrmK";

/**
 * Settings passed to the bundle: the system fonts instead of Scalar's font CDN, no telemetry, no AI agent (a
 * third-party service). Whatever the bundle would still try to reach elsewhere is refused by the CSP below.
 */
const SETTINGS = { withDefaultFonts: false, telemetry: false, agent: { disabled: true } };

/**
 * Headers of the page, like the hosted connect pages (src/connect/pages.ts): scripts only from this origin (no
 * inline script), inline styles (the bundle injects its stylesheet), requests only to this origin (the OpenAPI
 * document and "try it" calls), no framing, no sniffing, no referrer.
 */
export const API_DOCS_HEADERS: Record<string, string> = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-cache",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
};

const attribute = (value: string) =>
  value.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

export const apiDocsPage = () => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Edge Social Publisher API</title>
</head>
<body>
<script id="api-reference" type="application/json" data-url="/api/openapi.json" data-configuration="${attribute(JSON.stringify(SETTINGS))}"></script>
<script src="${API_REFERENCE_SCRIPT}" integrity="${API_REFERENCE_SCRIPT_INTEGRITY}" crossorigin="anonymous"></script>
</body>
</html>
`;

export const serveApiDocs = (c: Context) => c.body(apiDocsPage(), 200, API_DOCS_HEADERS);
