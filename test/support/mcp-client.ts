import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { BASE } from "./harness";
import { workerFetch } from "./worker-fetch";

/** The official MCP SDK client, talking streamable HTTP to the Worker's /mcp (in-process fetch). */
export async function connectMcp(key: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: (url, init) => workerFetch(new Request(url, init)),
  });
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

/** Calls a tool and returns its structured content, failing loudly on a tool error. */
export async function callTool<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) throw new Error(`${name} failed: ${JSON.stringify(res.content)}`);
  return res.structuredContent as T;
}
