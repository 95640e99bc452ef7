import { and, eq } from "drizzle-orm";
import type { WorkspaceContext } from "../../context";
import { webhookEndpoints } from "../../db/schema";
import { conflict } from "../../lib/errors";
import { formatIso } from "../../lib/time";
import { SECRET_ROTATION_GRACE_MS } from "./delivery-policy";
import { findWebhookEndpoint } from "./endpoints";
import { generateSecret, sealWebhookSecret } from "./signing";

/**
 * A new signing secret, returned once. For SECRET_ROTATION_GRACE_MS the previous one keeps signing too (both
 * signatures, space-separated, in `webhook-signature`), so receivers can switch without losing a delivery. Rotating
 * again during the grace period replaces the previous secret with the one being rotated out.
 */
export async function rotateWebhookSecret(ctx: WorkspaceContext, id: string) {
  const endpoint = await findWebhookEndpoint(ctx, id);
  const secret = generateSecret();
  const now = ctx.now();
  const expiresAt = now + SECRET_ROTATION_GRACE_MS;
  const [row] = await ctx.db
    .update(webhookEndpoints)
    .set({
      secret: await sealWebhookSecret(ctx, endpoint.id, secret),
      previousSecret: endpoint.secret,
      previousSecretExpiresAt: expiresAt,
      updatedAt: now,
    })
    // Compare-and-swap on the sealed secret: of two concurrent rotations one wins; the other is told to retry.
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.secret, endpoint.secret)))
    .returning({ id: webhookEndpoints.id });
  if (!row) throw conflict("The secret was rotated by another request at the same time; try again.");
  return { secret, previous_secret_expires_at: formatIso(expiresAt) };
}
