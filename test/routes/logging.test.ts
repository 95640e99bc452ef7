import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { setLogLevel } from "../../src/lib/logger";
import { createTestWorkspace, waitFor } from "../support/harness";

afterEach(() => {
  vi.restoreAllMocks();
  setLogLevel("silent");
});

describe("structured request logs", () => {
  it("writes one JSON line per request with id, route, status and duration — never the key", async () => {
    const ws = await createTestWorkspace();
    // Warm-up: the first use reads the key (then cached by the isolate) and writes last_used_at after the response.
    await ws.api("GET", "/api/workspace");
    await waitFor(async () => {
      const key = await env.DB.prepare("SELECT last_used_at FROM api_keys WHERE id = ?").bind(ws.keyId).first();
      return key?.last_used_at != null;
    });
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request("https://api.test/api/labels/0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a", {
        method: "PUT",
        headers: { Authorization: `Bearer ${ws.key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ name: "n", color: "#000000" }),
      }),
      { ...env, LOG_LEVEL: "info" } as unknown as Cloudflare.Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(404);
    const requestLines = lines.map((l) => JSON.parse(l)).filter((l) => l.event === "request");
    expect(requestLines).toEqual([
      {
        level: "info",
        event: "request",
        time: expect.any(String),
        request_id: res.headers.get("X-Request-Id"),
        method: "PUT",
        route: "/api/labels/:id",
        path: "/api/labels/0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a",
        status: 404,
        duration_ms: expect.any(Number),
        workspace_id: ws.workspaceId,
        // the key was read (and cached) by the warm-up request: only the label update runs
        d1_queries: 1,
      },
    ]);
    expect(lines.join("\n")).not.toContain(ws.key);
  });
});

describe("unexpected errors", () => {
  it("answer 500 {message: 'Server error.'} with no internals, and are logged with the request id", async () => {
    const { OpenAPIHono } = await import("@hono/zod-openapi");
    const { onError } = await import("../../src/middleware/errors");
    const { requestContext } = await import("../../src/middleware/request-context");
    const app = new OpenAPIHono<any>();
    app.use("*", requestContext);
    app.get("/boom", () => {
      throw new Error("database password is hunter2");
    });
    app.onError(onError);
    const errors: string[] = [];
    setLogLevel("error"); // test/support/setup.ts silences code called outside the Worker's handlers
    vi.spyOn(console, "error").mockImplementation((line: string) => void errors.push(line));
    const res = await app.fetch(new Request("https://api.test/boom"), env, createExecutionContext());
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: "Server error." });
    const logged = JSON.parse(errors[0]!);
    expect(logged).toMatchObject({
      level: "error",
      event: "unhandled_error",
      request_id: res.headers.get("X-Request-Id"),
    });
  });
});
