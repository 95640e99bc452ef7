import { signatures } from "../../db/schema";
import { presentSignature } from "../../presenters/resources";
import { workspaceItems } from "../workspace-items/workspace-items";

export interface SignatureInput extends Record<string, string> {
  name: string;
  content: string;
}

const items = workspaceItems<typeof signatures.$inferSelect, SignatureInput, ReturnType<typeof presentSignature>>(
  signatures,
  presentSignature,
);

export const listSignatures = items.list;
export const createSignature = items.create;
export const updateSignature = items.update;
export const deleteSignature = items.remove;
