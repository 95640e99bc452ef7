import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { mastodonApps } from "../../db/schema";
import { errorFields, log } from "../../lib/logger";
import { openSecret, type SealedAt, sealSecret, UnopenableSecretError } from "../../lib/sealing";
import type { ConnectContext } from "../../platforms/connect";

/** A cached app's secret is bound to its instance and callback URL (the row's key). */
const appAt = (instance: string, redirectUri: string): SealedAt => ({
  table: "mastodon_apps",
  row: `${instance} ${redirectUri}`,
});

/**
 * What connectors get: config, outbound fetch, the clock, and the Mastodon app cache over D1 (secret sealed). A
 * cached app whose secret no longer opens (sealed under a key that was rotated out) is dropped, so the connector
 * registers a new app on the instance instead of failing.
 */
export function connectContext(ctx: ServiceContext): ConnectContext {
  return {
    config: ctx.config,
    fetch: (input, init) => fetch(input, init),
    outbound: { allowPrivate: ctx.config.MEDIA_FETCH_ALLOW_PRIVATE },
    now: ctx.now,
    apps: {
      async get(instance, redirectUri) {
        const row = await ctx.db
          .select()
          .from(mastodonApps)
          .where(and(eq(mastodonApps.instance, instance), eq(mastodonApps.redirectUri, redirectUri)))
          .get();
        if (!row) return null;
        try {
          return {
            clientId: row.clientId,
            clientSecret: await openSecret<string>(ctx, appAt(instance, redirectUri), row.sealedSecret),
          };
        } catch (err) {
          if (!(err instanceof UnopenableSecretError)) throw err;
          log("warn", "mastodon_app_unopenable", { instance, ...errorFields(err) });
          await ctx.db
            .delete(mastodonApps)
            .where(
              and(
                eq(mastodonApps.instance, instance),
                eq(mastodonApps.redirectUri, redirectUri),
                eq(mastodonApps.sealedSecret, row.sealedSecret),
              ),
            );
          return null;
        }
      },
      async put(instance, redirectUri, client) {
        // Two first connects racing on one instance both register; the first stored app wins, the other is unused.
        await ctx.db
          .insert(mastodonApps)
          .values({
            instance,
            redirectUri,
            clientId: client.clientId,
            sealedSecret: await sealSecret(ctx, appAt(instance, redirectUri), client.clientSecret),
            createdAt: ctx.now(),
          })
          .onConflictDoNothing();
      },
    },
  };
}

/** Our callback URL for a platform: PUBLIC_URL when set (it must match what the developer console lists). */
export function callbackUrl(ctx: ServiceContext, platform: string): string {
  return `${ctx.config.PUBLIC_URL || ctx.origin}/api/oauth/${platform}/callback`;
}

export function publicBase(ctx: ServiceContext): string {
  return ctx.config.PUBLIC_URL || ctx.origin;
}
