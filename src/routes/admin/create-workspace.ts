import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "@hono/zod-openapi";
import type { WindowResult } from "../../durable-objects/upload-guard";
import { notFound, tooManyRequests, unauthenticated } from "../../lib/errors";
import { bootstrapOwner, checkOwnerInput } from "../../services/people/bootstrap-owner";
import { clientWindowKey } from "../../services/uploads/upload-guard";
import { createWorkspaceWithKey } from "../../services/workspaces/workspaces";
import type { App } from "../../types";
import { ErrorSchema, isoDate, jsonBody, nameField, ok, publicRoute } from "../openapi";
import { emailField, PersonSchema, passwordField, personNameField } from "../people/schemas";
import { ApiKeySchema, WorkspaceSchema } from "../schemas";

const OwnerRequest = z
  .object({
    email: emailField,
    name: personNameField.optional(),
    password: passwordField.optional(),
  })
  .openapi("BootstrapOwner", {
    description:
      "The workspace's first owner. With `password` and an address no person has yet, the person is created and can sign in at once. An existing person is never attached: for an address that is already a person's (password or not), and without `password`, the answer carries an owner invitation link bound to the address (only that address accepts it; an existing person signs in with their own password). `owner_existed` says which. A common or guessable password answers 422 (`owner.password`).",
  });
const CreateWorkspaceRequest = z
  .object({ name: nameField, owner: OwnerRequest.optional() })
  .openapi("CreateWorkspaceRequest");
const CreateWorkspaceResponse = z
  .object({
    workspace: WorkspaceSchema,
    token: ApiKeySchema,
    plain_token: z.string(),
    owner: PersonSchema.optional().openapi({
      description: "With `owner.password` for an address no person had: the owner, created and a member now.",
    }),
    owner_invitation: z.object({ url: z.string(), expires_at: isoDate }).optional().openapi({
      description:
        "With `owner` but no password, or for an address that is already a person's: the owner invitation link (7 days), accepted only by that address.",
    }),
    owner_existed: z.boolean().optional().openapi({
      description:
        "With `owner`: whether a person with this address existed before (then they were not attached, but invited).",
    }),
  })
  .openapi("CreateWorkspaceResponse");

const route = publicRoute({
  method: "post",
  path: "/api/admin/workspaces",
  operationId: "createWorkspace",
  tags: ["Admin"],
  summary: "Bootstrap a workspace, its first API key and optionally its first owner (Bearer ADMIN_TOKEN)",
  description:
    "Answers 404 when the ADMIN_TOKEN secret is not set, 401 for a wrong token; after `ADMIN_FAILURES_PER_MINUTE` wrong tokens from one client network in a minute, 429 (whatever the token) until the window ends.",
  security: [{ AdminToken: [] }],
  request: jsonBody(CreateWorkspaceRequest),
  responses: {
    201: ok(CreateWorkspaceResponse, "The workspace, its key record and the plain key (shown once)."),
    401: ok(ErrorSchema, "Wrong admin token."),
    429: ok(ErrorSchema, "Too many wrong admin tokens from this address; see `Retry-After`."),
  },
});

export const registerCreateWorkspace = (app: App) =>
  app.openapi(route, async (c) => {
    const service = c.get("service");
    const body = c.req.valid("json");
    if (body.owner) checkOwnerInput(body.owner);
    const created = await createWorkspaceWithKey(service, { name: body.name });
    if (!body.owner) return c.json(created, 201);
    return c.json({ ...created, ...(await bootstrapOwner(service, created.workspace.id, body.owner)) }, 201);
  });

/**
 * The admin token compared in constant time without leaking its length (issue 35): both sides are HMAC-SHA256'd with
 * a key drawn once per isolate, and the two 32-byte digests compared with `timingSafeEqual`. The time taken depends
 * on neither the given token's nor the expected token's content or length (beyond hashing, which is linear in the
 * given token's length — the caller's own input).
 */
// Drawn on first use: random values may not be generated at a Worker's global scope.
let compareKey: Buffer | undefined;
const digest = (value: string) => {
  compareKey ??= randomBytes(32);
  return createHmac("sha256", compareKey).update(value).digest();
};
export const adminTokenMatches = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

/** 404 when ADMIN_TOKEN is not set, 401 unless the Authorization header carries it. */
export function requireAdminToken(expected: string | undefined, authorization: string | undefined): void {
  if (!expected) throw notFound();
  const given = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? "";
  if (!adminTokenMatches(given, expected)) throw unauthenticated();
}

/** Wrong admin tokens allowed per minute per client network (IPv4 address, IPv6 /64) before the gate answers 429. */
export const ADMIN_FAILURES_PER_MINUTE = 10;

const failureWindow = (c: { env: Cloudflare.Env }, ip: string) => {
  const name = `admin-fail:${clientWindowKey(ip)}`;
  return { name, guard: c.env.UPLOAD_GUARD.getByName(name) };
};

/**
 * Runs before body validation so a caller without the admin token learns nothing about the body rules. Throttled
 * (issue 35): only wrong tokens count (the bootstrap scripts and the tests use the right one), and once a client
 * network has sent `ADMIN_FAILURES_PER_MINUTE` of them in the current minute every request from it answers 429
 * before the token is compared, so guessing gets no answer at all. Keyed by `CF-Connecting-IP` (set by Cloudflare's
 * edge), in the UploadGuard Durable Object like the sign-in windows.
 */
export const adminGate = (app: App) =>
  app.use("/api/admin/*", async (c, next) => {
    const expected = c.get("service").config.ADMIN_TOKEN;
    if (!expected) throw notFound();
    const { name, guard } = failureWindow(c, c.req.header("CF-Connecting-IP") ?? "unknown");
    const now = Date.now();
    if ((await guard.peek(name, 60, now)) >= ADMIN_FAILURES_PER_MINUTE)
      throw tooManyRequests(Math.max(1, 60 - Math.floor((now % 60_000) / 1000)));
    try {
      requireAdminToken(expected, c.req.header("Authorization"));
    } catch (err) {
      const counted = (await guard.hit(name, ADMIN_FAILURES_PER_MINUTE, 60, now)) as WindowResult;
      if (!counted.allowed) throw tooManyRequests(counted.retryAfterSeconds);
      throw err;
    }
    await next();
  });
