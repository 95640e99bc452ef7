import { exports } from "cloudflare:workers";
import { Validator } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import oas31 from "../../node_modules/@seriousme/openapi-schema-validator/schemas/v3.1/schema.json";
import { createApp } from "../../src/app";
import { call } from "../support/harness";

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
      .filter((r) => !["/api/openapi.json", "/api/docs"].includes(r.path));
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

  it("serves the interactive reference page", async () => {
    const res = await exports.default.fetch(new Request("https://api.test/api/docs"));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toContain("text/html");
    expect(await res.text()).toContain("/api/openapi.json");
  });
});
