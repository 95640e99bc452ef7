/**
 * The TypeScript SDK of the Edge Social Publisher API: openapi-fetch over the types openapi-typescript generated from
 * the document the Worker serves (sdk/schema.d.ts, from sdk/openapi.json; `npm run sdk:generate`). Every path,
 * parameter, body and response is typed from that document: there are no hand-written request shapes.
 *
 * Two ways to authenticate:
 * - an API key (`apiKey`): sent as `Authorization: Bearer …` (servers, scripts, agents);
 * - the browser's session cookie (no `apiKey`): the dashboard, on the API's own origin. The signed-in person's
 *   workspace is chosen per request with `X-Workspace-Id` (`workspaceId`, a value or a function read on each request).
 *
 * Read-your-writes: every response carries `x-d1-bookmark`; the client sends the last one it received back with its
 * next request, so a read after a write sees that write even when it is served by a D1 read replica
 * (docs/consistency.md).
 */
import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "./schema";

export type { components, operations, paths };
/** A schema of the document by name: `Schema<"Post">`. */
export type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];
export type ApiClient = Client<paths>;

export const BOOKMARK_HEADER = "x-d1-bookmark";
export const WORKSPACE_HEADER = "X-Workspace-Id";

export interface ClientOptions {
  /** The API's origin, e.g. `https://publisher.example.com` (paths start with `/api/`). `""` in the browser: same origin. */
  baseUrl: string;
  /** An API key (`esp_…`). Without one, requests carry the browser's cookies (same origin only). */
  apiKey?: string;
  /** Cookie mode: the workspace each request acts in (`GET /api/me` lists the person's memberships). */
  workspaceId?: string | (() => string | null | undefined);
  /** Send the newest `x-d1-bookmark` back on the next request (default true). */
  readYourWrites?: boolean;
  /** A fetch of your own (tests, retries, logging). */
  fetch?: (input: Request) => Promise<Response>;
}

export function createClient(options: ClientOptions): ApiClient {
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    // A key never rides along with cookies; cookie mode never leaves the origin.
    credentials: options.apiKey ? "omit" : "same-origin",
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  let bookmark: string | null = null;
  const readYourWrites = options.readYourWrites ?? true;
  const auth: Middleware = {
    onRequest({ request }) {
      if (options.apiKey) request.headers.set("Authorization", `Bearer ${options.apiKey}`);
      else {
        const workspace = typeof options.workspaceId === "function" ? options.workspaceId() : options.workspaceId;
        if (workspace) request.headers.set(WORKSPACE_HEADER, workspace);
      }
      if (readYourWrites && bookmark && !request.headers.has(BOOKMARK_HEADER))
        request.headers.set(BOOKMARK_HEADER, bookmark);
      return request;
    },
    onResponse({ response }) {
      const seen = response.headers.get(BOOKMARK_HEADER);
      // The server's answer names a state at least as new as the bookmark the request carried.
      if (seen) bookmark = seen;
      return response;
    },
  };
  client.use(auth);
  return client;
}

/** The first message of an error body (`{message}` or a validation failure), for showing to a person. */
export function errorMessage(error: unknown, fallback = "Something went wrong."): string {
  if (error && typeof error === "object" && "message" in error && typeof error.message === "string")
    return error.message;
  return fallback;
}

/** The per-field messages of a 422 (`errors`, keyed by dotted field path), or an empty object. */
export function fieldErrors(error: unknown): Record<string, string[]> {
  if (error && typeof error === "object" && "errors" in error && error.errors && typeof error.errors === "object")
    return error.errors as Record<string, string[]>;
  return {};
}
