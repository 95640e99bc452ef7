import type { OpenAPIHono } from "@hono/zod-openapi";
import type { ServiceContext, WorkspaceContext } from "./context";
import type { MultipartReader } from "./media/multipart";

export interface AppVariables {
  requestId: string;
  /** Set by the request-context middleware on every request. */
  service: ServiceContext;
  /** Set by the API-key middleware on authenticated routes. */
  workspace: WorkspaceContext;
  /** Set by `drainedUploadBody` on upload routes: the multipart body (null when not multipart/form-data). */
  uploadForm: MultipartReader | null;
  /**
   * Set by a route that counted more than its one request against the throttle (an MCP batch): what is left after
   * those, for `X-RateLimit-Remaining`.
   */
  rateLimitRemaining?: number;
}

export interface AppEnv {
  Bindings: Cloudflare.Env;
  Variables: AppVariables;
}

export type App = OpenAPIHono<AppEnv>;
