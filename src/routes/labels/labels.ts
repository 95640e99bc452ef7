import { z } from "@hono/zod-openapi";
import { createLabel, deleteLabel, listLabels, updateLabel } from "../../services/labels/labels";
import type { App } from "../../types";
import { colorField, nameField } from "../openapi";
import { LabelSchema } from "../schemas";
import { registerWorkspaceItemRoutes } from "../workspace-items";

const LabelRequest = z.object({ name: nameField, color: colorField }).openapi("LabelRequest");

export const registerLabels = (app: App) =>
  registerWorkspaceItemRoutes(app, {
    path: "/api/labels",
    tag: "Labels",
    noun: "label",
    request: LabelRequest,
    item: LabelSchema,
    operationIds: { list: "listLabels", create: "createLabel", update: "updateLabel", remove: "deleteLabel" },
    deleteNote: "it is detached from every post",
    service: { list: listLabels, create: createLabel, update: updateLabel, remove: deleteLabel },
  });
