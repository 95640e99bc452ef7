import { sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { sealingKeyId } from "../../lib/crypto";
import { errorFields, log } from "../../lib/logger";
import { openSecret, type SealedAt, sealingKeys, sealSecret } from "../../lib/sealing";
import { markSweepFinished, sweepResting } from "./sweep-marks";

const SWEEP_NAME = "reseal-secrets";

/** Values re-sealed per column per cron tick. */
export const RESEAL_SECRETS_BATCH = 50;

/**
 * The sealed columns besides account credentials (those have their own sweep, which stays clear of token
 * refreshes: src/services/social-accounts/reseal-credentials.ts). `row` is the SQL that yields the row a value is
 * bound to (the `row` of its SealedAt).
 */
const COLUMNS: readonly { table: string; column: string; row: string }[] = [
  { table: "webhook_endpoints", column: "secret", row: "id" },
  { table: "webhook_endpoints", column: "previous_secret", row: "id" },
  { table: "mastodon_apps", column: "sealed_secret", row: "instance || ' ' || redirect_uri" },
  { table: "oauth_states", column: "sealed", row: "id" },
  { table: "connect_selections", column: "sealed", row: "id" },
];

/**
 * Brings every other sealed secret — webhook signing secrets, Mastodon app secrets, OAuth states and selections —
 * from the legacy format (v1) or a previous key to the current key, RESEAL_SECRETS_BATCH per column per cron tick,
 * each value compare-and-swapped on its old ciphertext (a rotation or consume meanwhile wins). A value that does
 * not open is logged and left (its reader turns it into a clear error). Does nothing while TOKEN_ENCRYPTION_KEY
 * is unset, and rests a day once a tick finds nothing left (src/services/sealing/sweep-marks.ts). docs/security.md
 * "Key rotation".
 */
export async function resealSecrets(ctx: ServiceContext): Promise<number> {
  if (!ctx.config.TOKEN_ENCRYPTION_KEY) return 0;
  const kid = await sealingKeyId(sealingKeys(ctx.config).current);
  if (await sweepResting(ctx, SWEEP_NAME, kid)) return 0;
  let resealed = 0;
  let found = 0;
  for (const c of COLUMNS) {
    const rows = await ctx.db.all<{ rid: number; bound: string; sealed: string }>(
      sql`SELECT rowid AS rid, ${sql.raw(c.row)} AS bound, ${sql.identifier(c.column)} AS sealed
          FROM ${sql.identifier(c.table)}
          WHERE ${sql.identifier(c.column)} IS NOT NULL AND ${sql.identifier(c.column)} NOT LIKE ${`v2.${kid}.%`}
          LIMIT ${RESEAL_SECRETS_BATCH}`,
    );
    found += rows.length;
    for (const row of rows) {
      const at: SealedAt = { table: c.table, row: row.bound };
      try {
        const sealed = await sealSecret(ctx, at, await openSecret(ctx, at, row.sealed));
        const done = await ctx.db.all<{ rid: number }>(
          sql`UPDATE ${sql.identifier(c.table)} SET ${sql.identifier(c.column)} = ${sealed}
              WHERE rowid = ${row.rid} AND ${sql.identifier(c.column)} = ${row.sealed} RETURNING rowid AS rid`,
        );
        resealed += done.length;
      } catch (err) {
        log("warn", "secret_reseal_failed", { table: c.table, column: c.column, ...errorFields(err) });
      }
    }
  }
  if (resealed > 0) log("info", "secrets_resealed", { values: resealed });
  if (found === 0) await markSweepFinished(ctx, SWEEP_NAME, kid);
  return resealed;
}
