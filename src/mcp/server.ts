import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { WorkspaceContext } from "../context";
import { connectTools } from "./connect.tools";
import { mediaTools } from "./media.tools";
import { metricsTools, postTools } from "./posts.tools";
import { queueTools } from "./queues.tools";
import { registerTools, type ToolDefinition } from "./tool";
import { webhookTools } from "./webhooks.tools";
import { workspaceTools } from "./workspace.tools";

/** Every tool area; each `<area>.tools.ts` exports its list. */
export const toolAreas: ToolDefinition[][] = [
  postTools,
  mediaTools,
  metricsTools,
  workspaceTools,
  webhookTools,
  connectTools,
  queueTools,
];

/**
 * Stateless MCP over streamable HTTP: a fresh server and transport per request, scoped to the API key's
 * workspace, JSON responses (no SSE sessions to keep).
 */
export async function handleMcpRequest(
  ctx: WorkspaceContext,
  request: Request,
  parsedBody?: unknown,
): Promise<Response> {
  const server = new McpServer(
    { name: "edge-social-publisher", version: "1.0.0" },
    { capabilities: { tools: {} }, jsonSchemaValidator: new CfWorkerJsonSchemaValidator() },
  );
  for (const tools of toolAreas) registerTools(server, ctx, tools);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  return transport.handleRequest(request, parsedBody === undefined ? undefined : { parsedBody });
}
