import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call } from "../support/harness";
import { workerFetch } from "../support/worker-fetch";

/**
 * The dashboard under /app (src/routes/app/app-shell.ts): its built page (public/app/index.html, from
 * `npm run build:web`; test/support/build-web.global.ts builds it when missing) answers every client-side route with
 * a strict CSP, its hashed files are static assets, `/` leads to it, and /api is untouched.
 */
const SHELL_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-cache",
  // MEDIA_URL is https://media.test in the tests: media previews may load from there, and from nowhere else.
  "content-security-policy":
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https://media.test; media-src 'self' blob: https://media.test; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin",
  "x-request-id": expect.any(String),
  "server-timing": expect.any(String),
};

/** The built page as the static assets hold it. */
async function builtPage(): Promise<string> {
  const res = await env.ASSETS.fetch(new Request("https://api.test/app/"));
  expect(res.status, "public/app/index.html is missing: run npm run build:web").toBe(200);
  return res.text();
}

describe("dashboard shell", () => {
  it.each(["/app", "/app/", "/app/calendar", "/app/posts/123", "/app/settings?tab=keys", "/app/index.html"])(
    "GET %s answers the app's page with its CSP, nosniff, no framing and no referrer",
    async (path) => {
      const res = await call("GET", path);
      expect({ status: res.status, headers: Object.fromEntries(res.headers), body: res.text }).toEqual({
        status: 200,
        headers: SHELL_HEADERS,
        body: await builtPage(),
      });
    },
  );

  it("the page holds no inline script or style and names only files of this origin", async () => {
    const html = await builtPage();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({
      attrs: m[1],
      body: m[2],
    }));
    expect(scripts).toEqual([
      { attrs: expect.stringMatching(/^ type="module" src="\/app\/assets\/main-\w+\.js"$/), body: "" },
    ]);
    expect(html).not.toMatch(/<style\b|\sstyle=|\son[a-z]+=/i);
    // No third-party origin: every reference is a path on this origin (or the empty data: icon).
    const references = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    expect(references.length).toBeGreaterThan(1);
    for (const ref of references) expect(ref).toMatch(/^\/app\/assets\/[\w-]+\.(js|css)$|^data:,$/);
  });

  it("every file the page names is a static asset, cached for good, never sniffed", async () => {
    const html = await builtPage();
    const files = [...html.matchAll(/\b(?:src|href)="(\/app\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    for (const file of files) {
      const res = await workerFetch(new Request(`https://api.test${file}`));
      expect(
        {
          status: res.status,
          type: res.headers.get("Content-Type"),
          cache: res.headers.get("Cache-Control"),
          nosniff: res.headers.get("X-Content-Type-Options"),
          corp: res.headers.get("Cross-Origin-Resource-Policy"),
        },
        file,
      ).toEqual({
        status: 200,
        type: file.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8",
        cache: "public, max-age=31536000, immutable",
        nosniff: "nosniff",
        corp: "same-origin",
      });
    }
  });

  it("a hashed file that is not there is a 404 nobody keeps, not the page", async () => {
    for (const path of ["/app/assets/main-OLDHASH.js", "/api/docs/assets/scalar-api-reference-0.0.0.js"]) {
      const res = await call("GET", path);
      expect({ status: res.status, cache: res.headers.get("Cache-Control"), body: res.body }, path).toEqual({
        status: 404,
        cache: "no-store",
        body: { message: "Not found." },
      });
    }
  });

  it("a browser revalidating a hashed file gets a 304 that is still cached for good", async () => {
    const html = await builtPage();
    const file = /src="(\/app\/assets\/main-\w+\.js)"/.exec(html)![1]!;
    const first = await workerFetch(new Request(`https://api.test${file}`));
    await first.arrayBuffer();
    const etag = first.headers.get("ETag");
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);
    const again = await workerFetch(new Request(`https://api.test${file}`, { headers: { "If-None-Match": etag! } }));
    expect({ status: again.status, cache: again.headers.get("Cache-Control"), body: await again.text() }).toEqual({
      status: 304,
      cache: "public, max-age=31536000, immutable",
      body: "",
    });
  });

  it("/ leads a browser to the dashboard", async () => {
    const res = await exports.default.fetch(new Request("https://api.test/", { redirect: "manual" }));
    expect({ status: res.status, location: res.headers.get("Location"), body: await res.text() }).toEqual({
      status: 302,
      location: "/app",
      body: "",
    });
  });

  it("/api is unaffected: JSON answers, JSON 404s", async () => {
    const health = await call("GET", "/api/health");
    expect({ status: health.status, type: health.headers.get("Content-Type") }).toEqual({
      status: 200,
      type: "application/json",
    });
    expect(health.headers.get("Content-Security-Policy")).toBeNull();
    const missing = await call("GET", "/api/app");
    expect({ status: missing.status, body: missing.body }).toEqual({ status: 404, body: { message: "Not found." } });
  });
});
