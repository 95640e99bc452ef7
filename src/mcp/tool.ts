import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { WorkspaceContext } from "../context";
import { AppError } from "../lib/errors";
import { errorFields, log } from "../lib/logger";
import { parseOrThrow } from "../lib/validation";
import { type ApiKeyScope, scopeAllows, scopeForbidden } from "../services/api-keys/scopes";

/**
 * One tool = name, description, described input fields, annotations and a `run` that calls the same service
 * verbs as REST. Registered through `registerTools` only, so error rendering, workspace scoping and the API key's
 * scope check cannot be skipped: service errors (AppError) become tool errors with their message and field errors; anything else is a
 * logged "Server error." tool error — never a protocol crash. Inputs are validated here too, with the REST rules and
 * wording: a bad input (a missing field, an array past its bound) is a tool error `{message, errors.<field>}` like the
 * REST 422 (docs/limits.md), not the SDK's own "Input validation error" text.
 */
export interface ToolDefinition<Shape extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: Shape;
  annotations: Pick<ToolAnnotations, "readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint">;
  /** The API key scope the tool needs (docs/security.md); by default `read` for read-only tools, else `full`. */
  scope?: ApiKeyScope;
  run: (ctx: WorkspaceContext, input: z.infer<z.ZodObject<Shape>>) => Promise<unknown>;
}

export const defineTool = <Shape extends z.ZodRawShape>(def: ToolDefinition<Shape>) => def as unknown as ToolDefinition;

function toolError(message: string, errors?: Record<string, string[]>): CallToolResult {
  const structured = errors ? { message, errors } : { message };
  return {
    isError: true,
    content: [{ type: "text", text: errors ? `${message}\n${JSON.stringify(errors)}` : message }],
    structuredContent: structured,
  };
}

/** Structured content must be an object: lists are returned as `{items: [...]}`. */
function toolResult(value: unknown): CallToolResult {
  const structured = Array.isArray(value) ? { items: value } : ((value ?? {}) as Record<string, unknown>);
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: structured };
}

/** The scope a tool needs: its own, or `read` for read-only tools and `full` for the rest. */
export const toolScope = (tool: ToolDefinition): ApiKeyScope =>
  tool.scope ?? (tool.annotations.readOnlyHint ? "read" : "full");

/**
 * Turns off the SDK's own check of tool inputs, which answers a bare text error; `registerTools` validates each
 * input itself against the same schema. The schema still goes out in `tools/list`. Covered by test/mcp/bounds.test.ts
 * (an SDK that renamed this hook would answer its own error shape there).
 */
function validateInputsInTools(server: McpServer): void {
  (server as unknown as { validateToolInput: (tool: unknown, args: unknown) => Promise<unknown> }).validateToolInput =
    async (_tool, args) => args ?? {};
}

export function registerTools(server: McpServer, ctx: WorkspaceContext, tools: ToolDefinition[]): void {
  validateInputsInTools(server);
  for (const tool of tools) {
    const schema = z.object(tool.input);
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: { title: tool.title, openWorldHint: false, ...tool.annotations },
      },
      (async (input: Record<string, unknown>) => {
        const need = toolScope(tool);
        if (!scopeAllows(ctx.apiKeyScope, need)) return toolError(scopeForbidden(ctx.apiKeyScope, need).message);
        try {
          return toolResult(await tool.run(ctx, parseOrThrow(schema, input) as never));
        } catch (err) {
          if (err instanceof AppError) return toolError(err.message, err.errors);
          log("error", "mcp_tool_error", { request_id: ctx.requestId, tool: tool.name, ...errorFields(err) });
          return toolError("Server error.");
        }
      }) as never,
    );
  }
}
