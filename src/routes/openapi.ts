import { createRoute, type OpenAPIHono, type RouteConfig, z } from "@hono/zod-openapi";
import { BOOKMARK_HEADER, BOOKMARK_PATTERN } from "../db/session";
import { requirePrincipal, WORKSPACE_HEADER } from "../middleware/auth";
import { type ApiKeyScope, defaultScopeFor } from "../services/api-keys/scopes";
import type { PermissionArea } from "../services/people/roles";
import type { AppEnv } from "../types";

/** Shared OpenAPI building blocks: error bodies, id params, and the two kinds of route (public, API key). */

export const ErrorSchema = z.object({ message: z.string().openapi({ example: "Not found." }) }).openapi("Error");

export const ValidationErrorSchema = z
  .object({
    message: z.string().openapi({ example: "The name field is required. (and 1 more error)" }),
    errors: z
      .record(z.string(), z.array(z.string()))
      .openapi({ example: { name: ["The name field is required."], color: ["The color field is required."] } }),
  })
  .openapi("ValidationError");

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});

export const errorResponses = {
  400: json(ErrorSchema, "Malformed JSON body."),
  404: json(ErrorSchema, "Not found, or not in the key's workspace."),
  413: json(ErrorSchema, "JSON body larger than 1 MiB."),
  422: json(ValidationErrorSchema, "Validation failed; `errors` lists every problem by dotted field path."),
  500: json(ErrorSchema, "Unexpected error (logged with the request id)."),
} as const;

/** The media routes: the isolate's memory budget for media was not free in time (src/lib/memory-budget.ts). */
export const memoryBusyResponse = {
  503: json(ErrorSchema, "The Worker is busy with other media; send the file again after `Retry-After` seconds."),
} as const;

const authResponses = {
  401: json(ErrorSchema, "Missing, malformed, unknown, revoked or expired API key, or no live session."),
  403: json(
    ErrorSchema,
    "The API key's scope (or the person's role) does not allow this operation; or, signed in: not a member of the `X-Workspace-Id` workspace, or an unsafe request without a same-origin `Origin`.",
  ),
  429: json(ErrorSchema, "Per-key (per-person) throttle exceeded; see `Retry-After`."),
} as const;

export const jsonBody = <T extends z.ZodType>(schema: T, description = "JSON body") => ({
  body: { content: { "application/json": { schema } }, required: true, description },
});

export const ok = <T extends z.ZodType>(schema: T, description: string) => json(schema, description);
export const noContent = { description: "Done; no body." } as const;

/**
 * A route that needs a Bearer API key or a signed-in person (the `__Host-esp-session` cookie); the authorization,
 * the scope and role checks and their documented failures cannot be forgotten. `scope` is what the route needs
 * (docs/security.md): by default `read` for GET, `full` otherwise; `area` what it touches, for people's roles
 * (src/services/people/roles.ts; default `content`). Both are listed in the operation's security requirements
 * (`Bearer: [scope]`, `Session: [area]`).
 */
export function authedRoute<R extends Omit<RouteConfig, "security" | "middleware">>(
  route: R & { scope?: ApiKeyScope; area?: PermissionArea },
) {
  const { scope = defaultScopeFor(route.method), area = "content", ...config } = route;
  return createRoute({
    ...(config as unknown as R),
    security: [{ Bearer: [scope] }, { Session: [area] }] as Record<string, string[]>[],
    middleware: [requirePrincipal(scope, area)] as const,
    responses: { ...errorResponses, ...authResponses, ...route.responses },
  });
}

export function publicRoute<R extends RouteConfig>(route: R) {
  return createRoute({ ...route, responses: { ...errorResponses, ...route.responses } });
}

/** Path id. A value that is not a lowercase UUID answers 404, never 422 (see the validation hook). */
const uuidPath = (name: string, description: string) =>
  z
    .string()
    .regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    .openapi({ param: { name, in: "path" }, description, example: "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a" });

export const idParam = <K extends string>(name: K, description: string) =>
  z.object({ [name]: uuidPath(name, description) } as { [P in K]: ReturnType<typeof uuidPath> });

export const IdParam = idParam("id", "Resource id (UUID).");

export const nameField = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .openapi({ description: "At most 255 characters.", example: "Launch" });
export const colorField = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, "The :attribute field must be a hex colour in the form #RRGGBB.")
  .openapi({ description: "Hex colour `#RRGGBB` (either case, returned as given).", example: "#1D4ED8" });
export const ymdHis = z.string().openapi({ description: "`Y-m-d H:i:s`, UTC.", example: "2026-11-23 09:00:00" });
export const isoDate = z
  .string()
  .openapi({ description: "ISO 8601 with offset.", example: "2026-11-22T10:00:00+00:00" });

type OpenApiDoc = ReturnType<OpenAPIHono<AppEnv>["getOpenAPI31Document"]>;
interface OperationObject {
  security?: Record<string, string[]>[];
  parameters?: unknown[];
  responses?: Record<string, { headers?: Record<string, unknown> }>;
}

/**
 * The D1 bookmark (src/db/session.ts, docs/consistency.md) is handled by the request-context middleware for every
 * route, so it is documented once for every operation here: accepted as the `x-d1-bookmark` request header and
 * returned on every response, both as references to one component.
 */
export function documentBookmark(doc: OpenApiDoc): OpenApiDoc {
  doc.components ??= {};
  const components = doc.components;
  components.parameters = {
    ...components.parameters,
    D1Bookmark: {
      name: BOOKMARK_HEADER,
      in: "header",
      required: false,
      description:
        "The `x-d1-bookmark` of an earlier response: this request then reads a database state at least as new as that one " +
        "(sees the client's own writes). Without it a read may be served by the nearest D1 read replica. A value that is " +
        "not a D1 bookmark answers 400.",
      schema: {
        type: "string",
        pattern: BOOKMARK_PATTERN.source,
        example: "00000000-0000000f-00000000-0123456789abcdef0123456789abcdef",
      },
    },
  };
  components.headers = {
    ...components.headers,
    D1Bookmark: {
      description:
        "The D1 session's latest bookmark (absent when the request ran no query and sent none). Send it back as `x-d1-bookmark` to read your own writes.",
      schema: { type: "string" },
    },
  };
  components.parameters.WorkspaceId = {
    name: WORKSPACE_HEADER,
    in: "header",
    required: false,
    description:
      "Signed in (session cookie) only: the workspace to act in; absent, the person's oldest membership. A workspace the person is not a member of answers 403. Ignored with an API key (its workspace is its own).",
    schema: { type: "string", format: "uuid" },
  };
  for (const item of Object.values(doc.paths ?? {})) {
    for (const method of ["get", "head", "post", "put", "patch", "delete"] as const) {
      const op = (item as Record<string, OperationObject | undefined>)[method];
      if (!op) continue;
      op.parameters = [...(op.parameters ?? []), { $ref: "#/components/parameters/D1Bookmark" }];
      if (op.security?.some((s) => "Session" in s)) op.parameters.push({ $ref: "#/components/parameters/WorkspaceId" });
      for (const response of Object.values(op.responses ?? {})) {
        response.headers = { ...response.headers, [BOOKMARK_HEADER]: { $ref: "#/components/headers/D1Bookmark" } };
      }
    }
  }
  return doc;
}
