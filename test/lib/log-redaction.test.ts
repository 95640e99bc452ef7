import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createDb } from "../../src/db/client";
import { errorFields, log, setLogLevel } from "../../src/lib/logger";

beforeEach(() => setLogLevel("error"));
afterEach(() => {
  vi.restoreAllMocks();
  setLogLevel("silent");
});

const SECRET = "v2.abcd1234.sealed-credential-ciphertext";
const CONTENT = "my unpublished launch announcement";

async function failedQueryError(): Promise<Error> {
  return createDb(env.DB)
    .run(sql`INSERT INTO no_such_table (content, credentials) VALUES (${CONTENT}, ${SECRET})`)
    .then(
      () => {
        throw new Error("the query should have failed");
      },
      (e: Error) => e,
    );
}

describe("failed queries are logged without their bound values", () => {
  it("errorFields keeps the statement and D1's reason but not the parameters (message, stack, cause)", async () => {
    const err = await failedQueryError();
    expect(err.message).toContain(SECRET); // what drizzle puts in the message
    const fields = errorFields(err);
    const text = JSON.stringify(fields);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(CONTENT);
    expect(fields.error_message).toBe(
      "Failed query: INSERT INTO no_such_table (content, credentials) VALUES (?, ?)\nparams: [redacted]",
    );
    expect(String(fields.error_cause)).toContain("no such table");
  });

  it("an unexpected 500 from a failed query logs no parameter; strings logged elsewhere are cut too", async () => {
    const { OpenAPIHono } = await import("@hono/zod-openapi");
    const { onError } = await import("../../src/middleware/errors");
    const { requestContext } = await import("../../src/middleware/request-context");
    const app = new OpenAPIHono<any>();
    app.use("*", requestContext);
    app.get("/boom", async () => {
      throw await failedQueryError();
    });
    app.onError(onError);
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => void lines.push(line));
    const res = await app.fetch(new Request("https://api.test/boom"), env, createExecutionContext());
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: "Server error." });
    log("error", "cleanup_failed", { reason: String(await failedQueryError()) });
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) {
      expect(line).not.toContain(SECRET);
      expect(line).not.toContain(CONTENT);
    }
    expect(lines.join("\n")).toContain("params: [redacted]");
  });
});
