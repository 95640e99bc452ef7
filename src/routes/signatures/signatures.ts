import { z } from "@hono/zod-openapi";
import {
  createSignature,
  deleteSignature,
  listSignatures,
  updateSignature,
} from "../../services/signatures/signatures";
import type { App } from "../../types";
import { nameField } from "../openapi";
import { SignatureSchema } from "../schemas";
import { registerWorkspaceItemRoutes } from "../workspace-items";

const SignatureRequest = z
  .object({
    name: nameField,
    content: z.string().min(1).openapi({ description: "The text appended to posts when the signature is applied." }),
  })
  .openapi("SignatureRequest");

export const registerSignatures = (app: App) =>
  registerWorkspaceItemRoutes(app, {
    path: "/api/signatures",
    tag: "Signatures",
    noun: "signature",
    request: SignatureRequest,
    item: SignatureSchema,
    operationIds: {
      list: "listSignatures",
      create: "createSignature",
      update: "updateSignature",
      remove: "deleteSignature",
    },
    service: { list: listSignatures, create: createSignature, update: updateSignature, remove: deleteSignature },
  });
