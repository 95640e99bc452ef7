import { type SQL, sql } from "drizzle-orm";
import type { ServiceContext } from "../../context";
import { webhookEvents } from "../../db/schema";
import { POST_RESOURCE_COLUMNS } from "../posts/load-posts";
import { accountSnapshotJson } from "./account-snapshot";
import type { WebhookEventType } from "./event-types";

/**
 * The transactional outbox (docs/webhooks.md "Delivery"). Each function returns ONE statement to append to the D1
 * batch that makes a change, right after the statement it reports on: the event row commits with the change or not
 * at all. The statement is an `INSERT … SELECT` that reads what it needs in SQL — no extra round trip — and writes
 * nothing unless an enabled endpoint of the workspace subscribes to the type: for a workspace without webhooks it
 * costs one index probe of `webhook_endpoints`, and the resource snapshot is only built for subscribed events.
 *
 * `afterChange: true` records the event only if the statement just before it in the batch changed a row (SQLite
 * `changes()`, which counts the statement's own rows, not its triggers'), so a conditional UPDATE that matched
 * nothing — a duplicate queue delivery, a lost race — sends nothing.
 */
type EventContext = Pick<ServiceContext, "db" | "now" | "webhookOutbox">;

const EVENT_ID = sql.raw(`'msg_' || lower(hex(randomblob(16)))`);

/** True when an enabled endpoint of `workspaceId` subscribes to `type` (both SQL expressions). */
function subscribed(workspaceId: SQL, type: SQL): SQL {
  return sql`EXISTS (SELECT 1 FROM webhook_endpoints we WHERE we.workspace_id = ${workspaceId} AND we.enabled = 1
    AND EXISTS (SELECT 1 FROM json_each(we.events) WHERE json_each.value = ${type}))`;
}

const changed = (afterChange: boolean | undefined) => (afterChange ? sql`changes() > 0 AND ` : sql``);

/** The post's resource as `GET /api/posts/{post}` renders it (`[post, platforms, media, labels]`), at the change. */
const POST_SNAPSHOT = sql.raw(`json_array(json(r.post), json(r.platforms), json(r.media), json(r.labels))`);

function insertEvent(ctx: EventContext, select: SQL) {
  // The transport dispatches after its batches ran (kick.ts): a batch that failed left no rows to find.
  ctx.webhookOutbox.recorded = true;
  // Drizzle's insert-from-select names every column: the selects give (id, workspace_id, type, subject, payload,
  // created_at, dispatched_at). (A `db.run` with bound parameters cannot be batched by drizzle 0.45.)
  return ctx.db.insert(webhookEvents).select(select);
}

/** An event whose `data` is the Post (`post.scheduled`). */
export function postEvent(
  ctx: EventContext,
  type: WebhookEventType,
  postId: string,
  opts: { afterChange?: boolean } = {},
) {
  return postEventsWhere(ctx, type, sql`${changed(opts.afterChange)}posts.id = ${postId}`);
}

/**
 * An event whose `data` is the Post for every post `where` selects (an SQL condition on `posts`), one each: one post
 * (`postEvent`), or the posts a queue move just gave new times (issue 37).
 */
export function postEventsWhere(ctx: EventContext, type: WebhookEventType, where: SQL) {
  return insertEvent(
    ctx,
    sql`SELECT ${EVENT_ID}, r.workspace_id, ${type}, ${POST_SNAPSHOT}, NULL, ${ctx.now()}, NULL
    FROM (SELECT posts.workspace_id AS workspace_id, ${POST_RESOURCE_COLUMNS} FROM posts
      WHERE ${where} AND ${subscribed(sql`posts.workspace_id`, sql`${type}`)}) r`,
  );
}

/**
 * After `recomputePostStatus` in the same batch: `post.published`, `post.partially_published` or `post.failed` —
 * only if that UPDATE settled the post just now.
 */
export function postSettledEvent(ctx: EventContext, postId: string) {
  const type = sql`'post.' || posts.status`;
  return insertEvent(
    ctx,
    sql`SELECT ${EVENT_ID}, r.workspace_id, r.type, ${POST_SNAPSHOT}, NULL, ${ctx.now()}, NULL
    FROM (SELECT posts.workspace_id AS workspace_id, ${type} AS type, ${POST_RESOURCE_COLUMNS} FROM posts
      WHERE changes() > 0 AND posts.id = ${postId} AND posts.status IN ('published', 'partially_published', 'failed')
        AND ${subscribed(sql`posts.workspace_id`, type)}) r`,
  );
}

/**
 * After the UPDATE that settled post-platform rows (each written with `updated_at = now`):
 * `post.platform.published` / `post.platform.failed` per row. `data` is the row as the post's `platforms[]` shows
 * it, plus `post_id`. `rows` is the rows' ids, or a condition on `pp` where the ids are not known (the sweeper).
 */
export function postPlatformEvents(
  ctx: EventContext,
  rows: string[] | SQL,
  now: number,
  opts: { afterChange?: boolean } = { afterChange: true },
) {
  const which = Array.isArray(rows) ? sql`pp.id IN (SELECT value FROM json_each(${JSON.stringify(rows)}))` : rows;
  const type = sql`'post.platform.' || pp.status`;
  return insertEvent(
    ctx,
    sql`SELECT ${EVENT_ID}, r.workspace_id, r.type, json_insert(${POST_SNAPSHOT}, '$[#]', r.row_id), NULL, ${ctx.now()}, NULL
    FROM (SELECT posts.workspace_id AS workspace_id, ${type} AS type, pp.id AS row_id, ${POST_RESOURCE_COLUMNS}
      FROM post_platforms pp JOIN posts ON posts.id = pp.post_id
      WHERE ${changed(opts.afterChange)}${which}
        AND +pp.status IN ('published', 'failed') AND pp.updated_at = ${now}
        AND ${subscribed(sql`posts.workspace_id`, type)}
      ORDER BY pp.position) r`,
  );
}

/**
 * `account.expiring` / `account.needs_reconnect` (docs/account-health.md) for every account whose health was moved
 * to that state at `now` (`health_changed_at = now`; one account with `accountId`) by a conditional UPDATE earlier
 * in the batch that only matches accounts not in that state yet — so a tick or a publish that finds the account
 * already there sends nothing: one event per occurrence. `afterChange`: and only if the statement just before
 * changed rows.
 */
export function accountHealthEvents(
  ctx: EventContext,
  type: Extract<WebhookEventType, "account.expiring" | "account.needs_reconnect">,
  now: number,
  opts: { accountId?: string; afterChange?: boolean } = {},
) {
  const health = type === "account.expiring" ? "expiring" : "needs_reconnect";
  const one = opts.accountId === undefined ? sql`` : sql` AND sa.id = ${opts.accountId}`;
  return insertEvent(
    ctx,
    sql`SELECT ${EVENT_ID}, sa.workspace_id, ${type}, ${sql.raw(accountSnapshotJson.sql)}, NULL, ${ctx.now()}, NULL
    FROM social_accounts sa WHERE ${changed(opts.afterChange)}sa.health = ${health} AND sa.health_changed_at = ${now}${one}
      AND ${subscribed(sql`sa.workspace_id`, sql`${type}`)}`,
  );
}

/** `account.*`: `data` is the account as `GET /api/social-accounts` shows it (never its credentials). */
export function accountEvent(
  ctx: EventContext,
  type: WebhookEventType,
  accountId: string,
  opts: { afterChange?: boolean } = {},
) {
  return insertEvent(
    ctx,
    sql`SELECT ${EVENT_ID}, sa.workspace_id, ${type}, ${sql.raw(accountSnapshotJson.sql)}, NULL, ${ctx.now()}, NULL
    FROM social_accounts sa WHERE ${changed(opts.afterChange)}sa.id = ${accountId}
      AND ${subscribed(sql`sa.workspace_id`, sql`${type}`)}`,
  );
}

/** An event whose `data` is known when the batch is built (`media.uploaded`: the upload's response). */
export function dataEvent(
  ctx: EventContext,
  workspaceId: string,
  type: WebhookEventType,
  data: unknown,
  opts: { afterChange?: boolean } = {},
) {
  return insertEvent(
    ctx,
    sql`SELECT ${EVENT_ID}, ${workspaceId}, ${type}, ${JSON.stringify(data)}, NULL, ${ctx.now()}, NULL
    WHERE ${changed(opts.afterChange)}${subscribed(sql`${workspaceId}`, sql`${type}`)}`,
  );
}
