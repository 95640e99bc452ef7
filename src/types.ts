import type { OpenAPIHono } from "@hono/zod-openapi";
import type { ServiceContext, WorkspaceContext } from "./context";

export interface AppVariables {
  requestId: string;
  /** Set by the request-context middleware on every request. */
  service: ServiceContext;
  /** Set by the API-key middleware on authenticated routes. */
  workspace: WorkspaceContext;
}

export interface AppEnv {
  Bindings: Cloudflare.Env;
  Variables: AppVariables;
}

export type App = OpenAPIHono<AppEnv>;
