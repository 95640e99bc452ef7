import { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import { bodyLimit } from "hono/body-limit";
import { AppError } from "./lib/errors";
import { validationFailure } from "./lib/validation";
import { notFoundHandler, onError } from "./middleware/errors";
import { requestContext } from "./middleware/request-context";
import { registrars } from "./routes";
import type { AppEnv } from "./types";

export const JSON_BODY_LIMIT_BYTES = 1024 * 1024;

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
  // JSON bodies are capped; the multipart upload endpoints stream and enforce their own caps.
  const limitJson: Parameters<typeof app.use>[1] = async (c, next) => {
    if ((c.req.header("Content-Type") ?? "").toLowerCase().startsWith("multipart/")) return next();
    return bodyLimit({
      maxSize: JSON_BODY_LIMIT_BYTES,
      onError: () => {
        throw new AppError("payload_too_large", "Payload too large.");
      },
    })(c, next);
  };
  app.use("/api/*", limitJson);
  app.use("/mcp", limitJson);

  for (const register of registrars) register(app);

  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", {
    type: "http",
    scheme: "bearer",
    description: "An API key from `POST /api/api-keys` (or the admin bootstrap).",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminToken", {
    type: "http",
    scheme: "bearer",
    description: "The ADMIN_TOKEN secret.",
  });
  app.doc31("/api/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Edge Social Publisher API",
      version: "1.0.0",
      description:
        "Draft, schedule and publish posts with media to twelve social platforms, and read back engagement metrics.",
    },
    servers: [{ url: new URL(c.req.url).origin }],
  }));
  app.get("/api/docs", Scalar({ url: "/api/openapi.json", pageTitle: "Edge Social Publisher API" }));

  app.notFound(notFoundHandler(() => app.routes));
  app.onError(onError);
  return app;
}
