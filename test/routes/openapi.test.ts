import { exports } from "cloudflare:workers";
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import oas31 from "../../node_modules/@seriousme/openapi-schema-validator/schemas/v3.1/schema.json";
import { createApp } from "../../src/app";
import { API_REFERENCE_SCRIPT, API_REFERENCE_SCRIPT_INTEGRITY, apiDocsPage } from "../../src/routes/docs/api-docs";
import { call } from "../support/harness";
import { workerFetch } from "../support/worker-fetch";

describe("OpenAPI document", () => {
  it("is served and valid against the official OpenAPI 3.1 schema", async () => {
    const res = await call("GET", "/api/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    const validator = new Validator(oas31 as object, "2020-12", false);
    const result = validator.validate(res.body);
    expect(result.errors).toEqual([]);
    expect(result.valid).toBe(true);
    // The validator really checks: a document without `info` and with a malformed path item is refused.
    expect(validator.validate({ openapi: "3.1.0", paths: { "/x": { get: { responses: 5 } } } }).valid).toBe(false);
  });

  it("lists every /api route with its operation, responses and request schemas", async () => {
    const res = await call("GET", "/api/openapi.json");
    const doc = res.body as { paths: Record<string, Record<string, any>> };
    const routes = createApp()
      .routes.filter((r) => r.method !== "ALL" && r.path.startsWith("/api/"))
      // The document, the reference page and its static script (src/routes/hashed-assets.ts) are not API operations.
      .filter((r) => !["/api/openapi.json", "/api/docs", "/api/docs/assets/*"].includes(r.path));
    expect(routes.length).toBeGreaterThan(10);
    for (const r of routes) {
      const oasPath = r.path.replace(/:([A-Za-z_]+)/g, "{$1}");
      const op = doc.paths[oasPath]?.[r.method.toLowerCase()];
      expect(op, `${r.method} ${oasPath} is documented`).toBeDefined();
      expect(op.operationId, `${r.method} ${oasPath} operationId`).toMatch(/^[a-z][A-Za-z]+$/);
      const success = Object.keys(op.responses).filter((s) => s.startsWith("2"));
      expect(success.length, `${r.method} ${oasPath} success response`).toBeGreaterThan(0);
      for (const s of success) {
        if (s !== "204") expect(op.responses[s].content, `${r.method} ${oasPath} ${s} schema`).toBeDefined();
      }
      if (["post", "put"].includes(r.method.toLowerCase()) && !op.requestBody) {
        // Action endpoints without a body (toggle, publish) are fine; they must still document their params.
        expect(op.parameters ?? [], `${r.method} ${oasPath} has params or a body`).not.toEqual([]);
      }
    }
  });

  it("serves the interactive reference page: its script from this origin (vendored, SRI), no inline script, the HTML pages' headers", async () => {
    const res = await exports.default.fetch(new Request("https://api.test/api/docs"));
    const html = await res.text();
    expect({ status: res.status, headers: Object.fromEntries(res.headers) }).toEqual({
      status: 200,
      headers: {
        "content-type": "text/html; charset=utf-8",
        "cache-control": "no-cache",
        "referrer-policy": "no-referrer",
        "x-frame-options": "DENY",
        "x-content-type-options": "nosniff",
        "content-security-policy":
          "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        "x-request-id": expect.any(String),
        "server-timing": expect.any(String),
      },
    });
    expect(html).toBe(apiDocsPage());
    // No third-party origin: no absolute URL anywhere in the page; every reference is a path on this origin.
    expect(html).not.toMatch(/https?:|\/\/[a-z]/i);
    const references = [...html.matchAll(/\b(?:src|href|data-url)="([^"]*)"/g)].map((m) => m[1]);
    expect(references).toEqual(["/api/openapi.json", API_REFERENCE_SCRIPT]);
    // Every <script> is either the external bundle or a non-executing JSON element (script-src 'self' allows no inline).
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({
      attrs: m[1],
      body: m[2],
    }));
    expect(scripts).toHaveLength(2);
    expect(scripts[0]).toEqual({ attrs: expect.stringContaining('type="application/json"'), body: "" });
    expect(scripts[1]).toEqual({
      attrs: ` src="${API_REFERENCE_SCRIPT}" integrity="${API_REFERENCE_SCRIPT_INTEGRITY}" crossorigin="anonymous"`,
      body: "",
    });
    // The settings turn off Scalar's font CDN, telemetry and AI agent.
    const settings = /data-configuration="([^"]*)"/.exec(html)![1]!.replaceAll("&quot;", '"');
    expect(JSON.parse(settings)).toEqual({ withDefaultFonts: false, telemetry: false, agent: { disabled: true } });
  });

  it("the reference script is a static asset of this Worker, and its bytes match the page's integrity hash", async () => {
    const res = await workerFetch(new Request(`https://api.test${API_REFERENCE_SCRIPT}`));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("javascript");
    // src/routes/hashed-assets.ts: never sniffed, cached for good (the version is in the name), not loadable elsewhere.
    expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("Cross-Origin-Resource-Policy")).toBe("same-origin");
    const bytes = await res.arrayBuffer();
    expect(bytes.byteLength).toBeGreaterThan(1_000_000);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-384", bytes));
    expect(`sha384-${btoa(String.fromCharCode(...digest))}`).toBe(API_REFERENCE_SCRIPT_INTEGRITY);
  });
});
