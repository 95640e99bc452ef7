import { z } from "@hono/zod-openapi";
import { deepHealth } from "../../services/health/deep-health";
import type { App } from "../../types";
import { requireAdminToken } from "../admin/create-workspace";
import { ok, publicRoute } from "../openapi";

const Check = z
  .object({
    status: z.enum(["ok", "error"]),
    latency_ms: z.number().int(),
    error: z.string().optional(),
  })
  .openapi("HealthCheck");

const DeepHealth = z
  .object({
    status: z.enum(["ok", "degraded"]),
    checks: z.object({
      d1: Check,
      r2: Check,
      kv: Check,
      publish_queue: Check,
      webhook_queue: Check,
      durable_object: Check,
      linkedin_version: Check.openapi({
        description:
          "`error` while LinkedIn has answered HTTP 426 (version sunset) to the configured LINKEDIN_API_VERSION.",
      }),
    }),
  })
  .openapi("DeepHealth");

const route = publicRoute({
  method: "get",
  path: "/api/health",
  operationId: "health",
  tags: ["Service"],
  summary: "Liveness check (no auth); `?deep=1` checks every dependency (Bearer ADMIN_TOKEN)",
  description:
    "Without `deep`: answers at once, touching nothing. With `deep=1`: D1, R2, KV, both queue producers and the " +
    "Durable Object, concurrently, each with its latency, and whether LinkedIn refused the configured API version; " +
    "503 when one fails (docs/runbook.md).",
  request: {
    query: z.object({
      deep: z.enum(["0", "1"]).optional().openapi({ description: "`1`: check every dependency (admin token)." }),
    }),
  },
  responses: {
    200: ok(z.union([z.object({ status: z.literal("ok") }), DeepHealth]), "The Worker (and, deep, every check) is up."),
    503: ok(DeepHealth, "Deep check: at least one dependency failed."),
  },
});

export const registerHealth = (app: App) =>
  app.openapi(route, async (c) => {
    if (c.req.valid("query").deep !== "1") return c.json({ status: "ok" as const }, 200);
    const service = c.get("service");
    requireAdminToken(service.config.ADMIN_TOKEN, c.req.header("Authorization"));
    const result = await deepHealth(service);
    return result.status === "ok" ? c.json(result, 200) : c.json(result, 503);
  });
