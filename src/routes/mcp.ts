import { requireApiKey } from "../middleware/auth";
import type { App } from "../types";

/**
 * The tool server at /mcp: same API keys and per-key throttle as REST. Documented in docs/mcp.md.
 * The MCP SDK (and its JSON-schema machinery) is imported on first use, keeping it out of Worker start-up.
 */
export const registerMcp = (app: App) =>
  app.all("/mcp", requireApiKey, async (c) => {
    const { handleMcpRequest } = await import("../mcp/server");
    return handleMcpRequest(c.get("workspace"), c.req.raw);
  });
