import { z } from "@hono/zod-openapi";
import { listDeadLetters } from "../../services/dead-letters/list-dead-letters";
import { REPLAY_MAX, replayDeadLetters } from "../../services/dead-letters/replay-dead-letters";
import type { App } from "../../types";
import { ErrorSchema, jsonBody, ok, publicRoute, ymdHis } from "../openapi";

const DeadLetterSchema = z
  .object({
    id: z.string().openapi({ description: "The queue message id." }),
    queue: z.string().openapi({ example: "publish-jobs-dlq" }),
    post_platform_id: z.string().nullable(),
    workspace_id: z.string().nullable(),
    attempts: z.number().int().openapi({ description: "Deliveries the message had when it was dead-lettered." }),
    error: z.string().nullable().openapi({ description: "The row's last error when it was failed." }),
    body: z.unknown().openapi({ description: "The message body as received." }),
    created_at: ymdHis,
    replayed_at: ymdHis.nullable(),
  })
  .openapi("DeadLetter");

const listRoute = publicRoute({
  method: "get",
  path: "/api/admin/dead-letters",
  operationId: "listDeadLetters",
  tags: ["Admin"],
  summary: "Dead-lettered publish jobs, newest first (Bearer ADMIN_TOKEN)",
  security: [{ AdminToken: [] }],
  request: {
    query: z.object({
      state: z.enum(["pending", "replayed", "all"]).default("pending").openapi({ description: "Default `pending`." }),
      limit: z.coerce.number().int().min(1).max(500).default(100),
    }),
  },
  responses: {
    200: ok(z.object({ data: z.array(DeadLetterSchema) }), "The dead letters."),
    401: ok(ErrorSchema, "Wrong admin token."),
  },
});

const ReplayRequest = z
  .object({
    ids: z
      .array(z.string().min(1).max(128))
      .min(1)
      .max(REPLAY_MAX)
      .optional()
      .openapi({ description: `Letters to replay; omitted: the oldest ${REPLAY_MAX} not yet replayed.` }),
  })
  .openapi("ReplayDeadLettersRequest");

const replayRoute = publicRoute({
  method: "post",
  path: "/api/admin/dead-letters/replay",
  operationId: "replayDeadLetters",
  tags: ["Admin"],
  summary: "Send dead-lettered publish jobs again (Bearer ADMIN_TOKEN)",
  description:
    "Each job's failed row goes back to pending, its post to publishing, and the message to the publish queue. " +
    "A letter already replayed is skipped; one whose body does not parse is listed in `unreadable`.",
  security: [{ AdminToken: [] }],
  request: jsonBody(ReplayRequest),
  responses: {
    200: ok(
      z.object({ replayed: z.array(z.string()), unreadable: z.array(z.string()) }).openapi("ReplayDeadLettersResponse"),
      "What was sent again.",
    ),
    401: ok(ErrorSchema, "Wrong admin token."),
  },
});

export const registerDeadLetters = (app: App) => {
  app.openapi(listRoute, async (c) => c.json(await listDeadLetters(c.get("service"), c.req.valid("query")), 200));
  app.openapi(replayRoute, async (c) => c.json(await replayDeadLetters(c.get("service"), c.req.valid("json")), 200));
};
