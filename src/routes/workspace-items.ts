import type { z } from "@hono/zod-openapi";
import type { WorkspaceContext } from "../context";
import type { App } from "../types";
import { authedRoute, IdParam, jsonBody, noContent, ok } from "./openapi";

/**
 * The four operations of a small workspace-owned record (labels, signatures): list latest first, create, replace
 * by id, delete by id. Each resource names its schemas, operation ids and service verbs.
 */
export interface WorkspaceItemRoutes<Req extends z.ZodObject, Item extends z.ZodType> {
  path: string;
  tag: string;
  /** e.g. "label" → "Create a label". */
  noun: string;
  request: Req;
  item: Item;
  operationIds: { list: string; create: string; update: string; remove: string };
  deleteNote?: string;
  service: {
    list: (ctx: WorkspaceContext) => Promise<unknown[]>;
    create: (ctx: WorkspaceContext, input: z.infer<Req>) => Promise<unknown>;
    update: (ctx: WorkspaceContext, id: string, input: z.infer<Req>) => Promise<unknown>;
    remove: (ctx: WorkspaceContext, id: string) => Promise<void>;
  };
}

export function registerWorkspaceItemRoutes<Req extends z.ZodObject, Item extends z.ZodType>(
  app: App,
  spec: WorkspaceItemRoutes<Req, Item>,
) {
  const tags = [spec.tag];
  const byId = `${spec.path}/{id}`;
  const list = authedRoute({
    method: "get",
    path: spec.path,
    operationId: spec.operationIds.list,
    tags,
    summary: `List ${spec.noun}s, latest first`,
    responses: { 200: ok(spec.item.array(), "Plain array, no pagination.") },
  });
  const create = authedRoute({
    method: "post",
    path: spec.path,
    operationId: spec.operationIds.create,
    tags,
    summary: `Create a ${spec.noun}`,
    request: jsonBody(spec.request),
    responses: { 201: ok(spec.item, `The created ${spec.noun}.`) },
  });
  const update = authedRoute({
    method: "put",
    path: byId,
    operationId: spec.operationIds.update,
    tags,
    summary: `Update a ${spec.noun}`,
    request: { params: IdParam, ...jsonBody(spec.request) },
    responses: { 200: ok(spec.item, `The updated ${spec.noun}.`) },
  });
  const remove = authedRoute({
    method: "delete",
    path: byId,
    operationId: spec.operationIds.remove,
    tags,
    summary: `Delete a ${spec.noun}${spec.deleteNote ? ` (${spec.deleteNote})` : ""}`,
    request: { params: IdParam },
    responses: { 204: noContent },
  });
  // The handlers' bodies match the item schema (the presenters produce it); the casts only bridge generics.
  app.openapi(list, (async (c: any) => c.json(await spec.service.list(c.get("workspace")), 200)) as never);
  app.openapi(create, (async (c: any) =>
    c.json(await spec.service.create(c.get("workspace"), c.req.valid("json")), 201)) as never);
  app.openapi(update, (async (c: any) =>
    c.json(await spec.service.update(c.get("workspace"), c.req.valid("param").id, c.req.valid("json")), 200)) as never);
  app.openapi(remove, (async (c: any) => {
    await spec.service.remove(c.get("workspace"), c.req.valid("param").id);
    return c.body(null, 204);
  }) as never);
}
