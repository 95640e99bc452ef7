import { z } from "@hono/zod-openapi";
import {
  createSignature,
  deleteSignature,
  listSignatures,
  updateSignature,
} from "../../services/signatures/signatures";
import type { App } from "../../types";
import { authedRoute, IdParam, jsonBody, nameField, noContent, ok } from "../openapi";
import { SignatureSchema } from "../schemas";

const SignatureRequest = z
  .object({
    name: nameField,
    content: z.string().min(1).openapi({ description: "The text appended to posts when the signature is applied." }),
  })
  .openapi("SignatureRequest");
const tags = ["Signatures"];

const listRoute = authedRoute({
  method: "get",
  path: "/api/signatures",
  operationId: "listSignatures",
  tags,
  summary: "List signatures, latest first",
  responses: { 200: ok(z.array(SignatureSchema), "Plain array, no pagination.") },
});
const createRoute = authedRoute({
  method: "post",
  path: "/api/signatures",
  operationId: "createSignature",
  tags,
  summary: "Create a signature",
  request: jsonBody(SignatureRequest),
  responses: { 201: ok(SignatureSchema, "The created signature.") },
});
const updateRoute = authedRoute({
  method: "put",
  path: "/api/signatures/{id}",
  operationId: "updateSignature",
  tags,
  summary: "Update a signature",
  request: { params: IdParam, ...jsonBody(SignatureRequest) },
  responses: { 200: ok(SignatureSchema, "The updated signature.") },
});
const deleteRoute = authedRoute({
  method: "delete",
  path: "/api/signatures/{id}",
  operationId: "deleteSignature",
  tags,
  summary: "Delete a signature",
  request: { params: IdParam },
  responses: { 204: noContent },
});

export function registerSignatures(app: App) {
  app.openapi(listRoute, async (c) => c.json(await listSignatures(c.get("workspace")), 200));
  app.openapi(createRoute, async (c) => c.json(await createSignature(c.get("workspace"), c.req.valid("json")), 201));
  app.openapi(updateRoute, async (c) =>
    c.json(await updateSignature(c.get("workspace"), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  app.openapi(deleteRoute, async (c) => {
    await deleteSignature(c.get("workspace"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
