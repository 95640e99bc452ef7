import { handleMcpRequest } from "../mcp/server";
import { requireApiKey } from "../middleware/auth";
import type { App } from "../types";

/** The tool server at /mcp: same API keys and per-key throttle as REST. Documented in docs/mcp.md. */
export const registerMcp = (app: App) =>
  app.all("/mcp", requireApiKey, (c) => handleMcpRequest(c.get("workspace"), c.req.raw));
