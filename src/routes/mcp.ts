import { tooManyRequests, unauthenticated } from "../lib/errors";
import { requireApiKey } from "../middleware/auth";
import { countAdditionalRequests } from "../services/api-keys/authenticate-api-key";
import type { App } from "../types";

/**
 * The tool server at /mcp: same API keys, per-key and per-workspace throttle as REST. Documented in docs/mcp.md.
 * A JSON-RPC batch (allowed by MCP 2025-03-26, which clients may still negotiate) counts each of its messages as
 * one request: the HTTP request itself was counted by `requireApiKey`, the rest are counted here before anything
 * runs, and a batch the windows cannot hold whole answers 429 and runs nothing (docs/security.md). The answer's
 * `X-RateLimit-Remaining` is what is left after every message was counted.
 * The MCP SDK (and its JSON-schema machinery) is imported on first use, keeping it out of Worker start-up.
 */
export const registerMcp = (app: App) =>
  app.all("/mcp", requireApiKey, async (c) => {
    const ctx = c.get("workspace");
    const apiKeyId = ctx.apiKeyId;
    if (apiKeyId === null) throw unauthenticated(); // requireApiKey sets it; MCP is for API keys only
    let request = c.req.raw;
    let parsedBody: unknown;
    if (request.method === "POST") {
      const text = await request.text();
      request = new Request(request.url, { method: "POST", headers: request.headers, body: text });
      try {
        parsedBody = JSON.parse(text);
      } catch {
        parsedBody = undefined; // the transport answers the JSON-RPC parse error itself
      }
      if (Array.isArray(parsedBody) && parsedBody.length > 1) {
        const window = await countAdditionalRequests(
          ctx,
          { id: apiKeyId, workspaceId: ctx.workspaceId },
          parsedBody.length - 1,
        );
        if (window.revoked) throw unauthenticated();
        if (!window.allowed) {
          const err = tooManyRequests(window.retryAfterSeconds);
          err.headers!["X-RateLimit-Limit"] = String(window.limit);
          err.headers!["X-RateLimit-Remaining"] = "0";
          throw err;
        }
        c.set("rateLimitRemaining", window.remaining);
      }
    }
    const { handleMcpRequest } = await import("../mcp/server");
    return handleMcpRequest(ctx, request, parsedBody);
  });
