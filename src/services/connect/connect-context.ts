import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { mastodonApps } from "../../db/schema";
import type { ConnectContext } from "../../platforms/connect";
import { openPayload, sealPayload } from "./states";

/** What connectors get: config, outbound fetch, the clock, and the Mastodon app cache over D1 (secret sealed). */
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
        return { clientId: row.clientId, clientSecret: await openPayload<string>(ctx, row.sealedSecret) };
      },
      async put(instance, redirectUri, client) {
        // Two first connects racing on one instance both register; the first stored app wins, the other is unused.
        await ctx.db
          .insert(mastodonApps)
          .values({
            instance,
            redirectUri,
            clientId: client.clientId,
            sealedSecret: await sealPayload(ctx, client.clientSecret),
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
