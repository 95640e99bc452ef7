import { env } from "cloudflare:workers";

/**
 * Empties the storage a runtime's files share — every D1 table but the migrations' own record, the media bucket and
 * the metrics cache — so the file that runs next sees what a fresh runtime would: no workspace, post, account, OAuth
 * app or object another file left. The files that declare `// fresh storage: <why>` (vitest.config.ts) run work that
 * spans every workspace (the cron, a sweep, our OAuth app on a Mastodon instance); they share one runtime, and this
 * runs before each of them instead of a runtime of its own (a runtime's start and the Worker's import cost 4–13 s).
 */
export async function emptyStorage(): Promise<void> {
  const { results } = await env.DB.prepare(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_cf_%' AND name <> 'd1_migrations'",
  ).all<{ name: string }>();
  // One batch is one transaction; deferred foreign keys let the tables go in any order.
  await env.DB.batch([
    env.DB.prepare("PRAGMA defer_foreign_keys = ON"),
    ...results.map(({ name }) => env.DB.prepare(`DELETE FROM "${name}"`)),
  ]);
  await emptyBucket(env.MEDIA_BUCKET);
  await emptyKv(env.METRICS_CACHE);
}

async function emptyBucket(bucket: R2Bucket): Promise<void> {
  for (let cursor: string | undefined; ; ) {
    const page = await bucket.list({ cursor, limit: 1000 });
    if (page.objects.length > 0) await bucket.delete(page.objects.map((o) => o.key));
    if (!page.truncated) return;
    cursor = page.cursor;
  }
}

async function emptyKv(kv: KVNamespace): Promise<void> {
  for (let cursor: string | undefined; ; ) {
    const page = await kv.list({ cursor });
    await Promise.all(page.keys.map((k) => kv.delete(k.name)));
    if (page.list_complete) return;
    cursor = page.cursor;
  }
}
