import { and, eq, gt, isNotNull, isNull, like, lt, not, or } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { socialAccounts } from "../../db/schema";
import { sealingKeyId } from "../../lib/crypto";
import { errorFields, log } from "../../lib/logger";
import { markSweepFinished, sweepResting } from "../sealing/sweep-marks";
import { credentialKeys, openCredentials, sealCredentials } from "./credentials";

const SWEEP_NAME = "reseal-credentials";

/** Rows re-sealed per cron tick. */
export const RESEAL_BATCH = 50;
/**
 * Rows whose token expires within this (or whose refresh lease is held) are left alone: they are about to be
 * refreshed, and a refresh writes
 * with compare-and-swap on the sealed value (src/publishing/accounts.ts) — re-sealing under it would make the
 * refresh adopt the old tokens. The refresh seals with the current key anyway.
 */
export const RESEAL_SKIP_EXPIRING_MS = 60 * 60 * 1000;

/**
 * Brings credentials sealed in the legacy format (v1, no row binding) or under a previous key to the current key,
 * a batch per cron tick, each row compare-and-swapped on its old ciphertext. When none is left, the previous keys
 * can be removed (docs/security.md "Key rotation"). Does nothing while TOKEN_ENCRYPTION_KEY is unset, and rests a
 * day once a tick finds nothing left (src/services/sealing/sweep-marks.ts; rows skipped because their token is about
 * to be refreshed are sealed under the current key by that refresh).
 */
export async function resealCredentials(ctx: ServiceContext): Promise<number> {
  if (!ctx.config.TOKEN_ENCRYPTION_KEY) return 0;
  const kid = await sealingKeyId(credentialKeys(ctx).current);
  if (await sweepResting(ctx, SWEEP_NAME, kid)) return 0;
  const now = ctx.now();
  const rows = await ctx.db
    .select({ id: socialAccounts.id, credentials: socialAccounts.credentials })
    .from(socialAccounts)
    .where(
      and(
        isNotNull(socialAccounts.credentials),
        not(like(socialAccounts.credentials, `v2.${kid}.%`)),
        or(isNull(socialAccounts.tokenExpiresAt), gt(socialAccounts.tokenExpiresAt, now + RESEAL_SKIP_EXPIRING_MS)),
        or(isNull(socialAccounts.tokenRefreshLeaseUntil), lt(socialAccounts.tokenRefreshLeaseUntil, now)),
      ),
    )
    .limit(RESEAL_BATCH);
  let resealed = 0;
  for (const row of rows) {
    const old = row.credentials as string;
    try {
      const sealed = await sealCredentials(ctx, row.id, await openCredentials(ctx, row.id, old));
      const done = await ctx.db
        .update(socialAccounts)
        .set({ credentials: sealed })
        .where(and(eq(socialAccounts.id, row.id), eq(socialAccounts.credentials, old)))
        .returning({ id: socialAccounts.id });
      resealed += done.length;
    } catch (err) {
      log("warn", "credentials_reseal_failed", { social_account_id: row.id, ...errorFields(err) });
    }
  }
  if (resealed > 0) log("info", "credentials_resealed", { rows: resealed });
  if (rows.length === 0) await markSweepFinished(ctx, SWEEP_NAME, kid);
  return resealed;
}
