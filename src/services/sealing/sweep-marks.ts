import { and, eq, gt } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { sweepMarks } from "../../db/schema";

/**
 * The re-seal sweeps look for values under a previous key with a query no index can answer (`NOT LIKE 'v2.<kid>.%'`),
 * which reads the whole table. Once a sweep finds nothing left under key `kid`, it rests for `SWEEP_REST_MS`: new
 * values are sealed under the current key, so nothing new can need it — except a value written by a Worker still on
 * the old key during a deploy, which the next look, a day later, finds. A new key id starts the sweeps at once.
 */
export const SWEEP_REST_MS = 24 * 60 * 60 * 1000;

/** True while sweep `name` found nothing left under `kid` less than `SWEEP_REST_MS` ago: one primary-key read. */
export async function sweepResting(ctx: ServiceContext, name: string, kid: string): Promise<boolean> {
  const mark = await ctx.db
    .select({ name: sweepMarks.name })
    .from(sweepMarks)
    .where(
      and(eq(sweepMarks.name, name), eq(sweepMarks.keyId, kid), gt(sweepMarks.finishedAt, ctx.now() - SWEEP_REST_MS)),
    );
  return mark.length > 0;
}

/** Records that sweep `name` found nothing left under `kid`. */
export async function markSweepFinished(ctx: ServiceContext, name: string, kid: string): Promise<void> {
  const finishedAt = ctx.now();
  await ctx.db
    .insert(sweepMarks)
    .values({ name, keyId: kid, finishedAt })
    .onConflictDoUpdate({ target: sweepMarks.name, set: { keyId: kid, finishedAt } });
}
