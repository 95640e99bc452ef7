import { z } from "@hono/zod-openapi";
import type { App } from "../../types";
import { ok, publicRoute } from "../openapi";

const route = publicRoute({
  method: "get",
  path: "/api/health",
  operationId: "health",
  tags: ["Service"],
  summary: "Liveness check (no auth)",
  responses: { 200: ok(z.object({ status: z.literal("ok") }), "The Worker is serving.") },
});

export const registerHealth = (app: App) => app.openapi(route, (c) => c.json({ status: "ok" as const }, 200));
