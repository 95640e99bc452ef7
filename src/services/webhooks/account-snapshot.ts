import { jsonRow } from "../../db/json-rows";
import { socialAccounts } from "../../db/schema";

/**
 * The account as `account.*` events capture it at the change (outbox.ts) and render it (render.ts): every column the
 * Social Account resource shows, health included.
 */
export const accountSnapshotJson = jsonRow(socialAccounts, "sa", [
  "id",
  "platform",
  "displayName",
  "username",
  "avatarUrl",
  "isActive",
  "status",
  "refreshable",
  "accessEndsAt",
  "health",
  "healthReason",
  "createdAt",
  "updatedAt",
]);
export const decodeAccountSnapshot = accountSnapshotJson.decode;
