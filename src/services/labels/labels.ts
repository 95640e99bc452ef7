import { labels } from "../../db/schema";
import { presentLabel } from "../../presenters/resources";
import { workspaceItems } from "../workspace-items/workspace-items";

export interface LabelInput extends Record<string, string> {
  name: string;
  color: string;
}

const items = workspaceItems<typeof labels.$inferSelect, LabelInput, ReturnType<typeof presentLabel>>(
  labels,
  presentLabel,
);

export const listLabels = items.list;
export const createLabel = items.create;
export const updateLabel = items.update;
/** Deleting a label detaches it from every post (post_labels cascades). */
export const deleteLabel = items.remove;
