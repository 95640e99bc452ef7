import { z } from "@hono/zod-openapi";
import { createLabel, deleteLabel, listLabels, updateLabel } from "../../services/labels/labels";
import type { App } from "../../types";
import { authedRoute, colorField, IdParam, jsonBody, nameField, noContent, ok } from "../openapi";
import { LabelSchema } from "../schemas";

const LabelRequest = z.object({ name: nameField, color: colorField }).openapi("LabelRequest");
const tags = ["Labels"];

const listRoute = authedRoute({
  method: "get",
  path: "/api/labels",
  operationId: "listLabels",
  tags,
  summary: "List labels, latest first",
  responses: { 200: ok(z.array(LabelSchema), "Plain array, no pagination.") },
});
const createRoute = authedRoute({
  method: "post",
  path: "/api/labels",
  operationId: "createLabel",
  tags,
  summary: "Create a label",
  request: jsonBody(LabelRequest),
  responses: { 201: ok(LabelSchema, "The created label.") },
});
const updateRoute = authedRoute({
  method: "put",
  path: "/api/labels/{id}",
  operationId: "updateLabel",
  tags,
  summary: "Update a label",
  request: { params: IdParam, ...jsonBody(LabelRequest) },
  responses: { 200: ok(LabelSchema, "The updated label.") },
});
const deleteRoute = authedRoute({
  method: "delete",
  path: "/api/labels/{id}",
  operationId: "deleteLabel",
  tags,
  summary: "Delete a label (it is detached from every post)",
  request: { params: IdParam },
  responses: { 204: noContent },
});

export function registerLabels(app: App) {
  app.openapi(listRoute, async (c) => c.json(await listLabels(c.get("workspace")), 200));
  app.openapi(createRoute, async (c) => c.json(await createLabel(c.get("workspace"), c.req.valid("json")), 201));
  app.openapi(updateRoute, async (c) =>
    c.json(await updateLabel(c.get("workspace"), c.req.valid("param").id, c.req.valid("json")), 200),
  );
  app.openapi(deleteRoute, async (c) => {
    await deleteLabel(c.get("workspace"), c.req.valid("param").id);
    return c.body(null, 204);
  });
}
