import { OpenAPIHono } from "@hono/zod-openapi";
import { CONNECT_FORM_MAX_BYTES } from "./connect/pages";
import { boundedBody, declaredBodyLimit } from "./lib/read-body";
import { validationFailure } from "./lib/validation";
import { notFoundHandler, onError } from "./middleware/errors";
import { privateAnswers } from "./middleware/private-answers";
import { requestContext } from "./middleware/request-context";
import { registrars } from "./routes";
import { registerAppShell } from "./routes/app/app-shell";
import { serveApiDocs } from "./routes/docs/api-docs";
import { registerHashedAssets } from "./routes/hashed-assets";
import { documentBookmark } from "./routes/openapi";
import { SESSION_COOKIE } from "./services/people/auth";
import type { AppEnv } from "./types";

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

/** `POST /api/posts/{post}/media` and `POST /api/uploads/{token}`: multipart, streamed under their own caps. */
const STREAMED_UPLOAD_ROUTES = /^\/api\/(posts\/[^/]+\/media|uploads\/[^/]+)\/?$/;

export function createApp() {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const r = result as unknown as { target: string; error: { issues: [] }; data: unknown };
        throw validationFailure(r.target, r.error.issues, r.data);
      }
    },
  });

  app.use("*", requestContext);
  app.use("/api/*", privateAnswers);
  app.use("/mcp", privateAnswers);
  // Every body the Worker reads is bounded before it is read (src/lib/read-body.ts, docs/security.md): JSON on
  // /api/* and /mcp (multipart too: a multipart body anywhere but the two upload routes is read like any other),
  // the hosted pages' forms (declared length here, the stream by the route after it has looked its token up). The
  // two multipart upload routes stream and enforce their own caps (src/media/upload-body.ts).
  const limitJson = boundedBody(JSON_BODY_LIMIT_BYTES);
  const limitApi: Parameters<typeof app.use>[1] = async (c, next) => {
    const multipart = (c.req.header("Content-Type") ?? "").toLowerCase().startsWith("multipart/");
    if (multipart && c.req.method === "POST" && STREAMED_UPLOAD_ROUTES.test(c.req.path)) return next();
    return limitJson(c, next);
  };
  app.use("/api/*", limitApi);
  app.use("/mcp", limitJson);
  app.use("/connect/*", declaredBodyLimit(CONNECT_FORM_MAX_BYTES));

  for (const register of registrars) register(app);

  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key from `POST /api/api-keys` (or the admin bootstrap).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "Session", {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description:
      "A signed-in person (`POST /api/session`, the dashboard). The requirement lists the route's permission area (`content`, `keys`, `webhooks`, `members`): owners and admins reach every area, editors `content` with any method, viewers `content` reads only. Unsafe methods need a same-origin `Origin` header; `X-Workspace-Id` picks the workspace.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminToken", {
    type: "http",
    scheme: "bearer",
    description: "The ADMIN_TOKEN secret.",
  });
  // The document, with the D1 bookmark header added to every operation (src/routes/openapi.ts).
  app.get("/api/openapi.json", (c) =>
    c.json(
      documentBookmark(
        app.getOpenAPI31Document({
          openapi: "3.1.0",
          info: {
            title: "Edge Social Publisher API",
            version: "1.0.0",
            description:
              "Draft, schedule and publish posts with media to twelve social platforms, and read back engagement metrics.",
          },
          servers: [{ url: new URL(c.req.url).origin }],
        }),
      ),
    ),
  );
  app.get("/api/docs", serveApiDocs);
  // The hashed files of the API reference and the dashboard, before the dashboard's catch-all route.
  registerHashedAssets(app);
  registerAppShell(app);

  app.notFound(notFoundHandler(() => app.routes));
  app.onError(onError);
  return app;
}
