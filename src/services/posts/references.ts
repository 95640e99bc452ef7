import { and, type Column, getTableColumns, getTableName, sql } from "drizzle-orm";
import { contentTypeFitsPlatform } from "../../catalog/platforms";
import type { WorkspaceContext } from "../../context";
import { eqFilterOnly, type InsertGuard, inJsonArray } from "../../db/json-params";
import { jsonRow } from "../../db/json-rows";
import { labels, media, type posts, socialAccounts } from "../../db/schema";
import type { ErrorBag } from "../../lib/errors";
import { parseUserDateTime } from "../../lib/time";

/**
 * Checks shared by create and update: the accounts, labels and media a request names must exist in this workspace
 * (one D1 round trip for all three), accounts must be usable targets, content types must fit their platform.
 * Field names follow Laravel: `The selected platforms.0.social account id is invalid.`
 */
export type AccountRow = typeof socialAccounts.$inferSelect;
export type MediaRow = typeof media.$inferSelect;
export type LabelRow = typeof labels.$inferSelect;

export const attribute = (key: string) => key.replace(/_/g, " ");

/**
 * One batch of at most three statements whatever the request holds (none for an empty list): each id list is one
 * bound JSON array (src/db/json-params.ts), so 100 targets, 50 labels and 35 media stay far inside D1's 100
 * parameters per statement. Holes (`undefined`, items that failed the shape check) are skipped.
 */
export async function loadReferences(ctx: WorkspaceContext, ids: ReferenceIds): Promise<References> {
  const reads = referenceReads(ctx, ids);
  const [first, ...rest] = reads.statements;
  return reads.references(first ? await ctx.db.batch([first, ...rest]) : []);
}

export interface ReferenceIds {
  accountIds: (string | undefined)[];
  labelIds: (string | undefined)[];
  mediaIds: (string | undefined)[];
}

/**
 * The statements of `loadReferences` — one per kind with ids, each a batch item — for a caller that adds them to a
 * read batch of its own, and `references` to turn their results (in the same order) into rows by id.
 */
export function referenceReads(ctx: WorkspaceContext, ids: ReferenceIds) {
  const ws = ctx.workspaceId;
  const present = (list: (string | undefined)[]) => [...new Set(list.filter((id): id is string => id !== undefined))];
  const accountIds = present(ids.accountIds);
  const labelIds = present(ids.labelIds);
  const mediaIds = present(ids.mediaIds);
  // Each row with its fingerprint (`FINGERPRINTED`), for a later create that skips this read
  // (src/services/posts/reference-memory.ts).
  const read = (kind: keyof Fingerprints, wanted: string[]) => {
    const { table, sql: fingerprint } = FINGERPRINTED[kind];
    return ctx.db
      .select({ row: getTableColumns(table), fingerprint: sql<string>`${sql.raw(fingerprint)}` })
      .from(table)
      .where(and(inJsonArray(table.id, wanted), eqFilterOnly(table.workspaceId, ws)));
  };
  const statements = [
    ...(accountIds.length ? [read("accounts", accountIds)] : []),
    ...(labelIds.length ? [read("labels", labelIds)] : []),
    ...(mediaIds.length ? [read("media", mediaIds)] : []),
  ];
  return {
    statements,
    references(results: readonly unknown[]): References {
      let i = 0;
      const next = <T extends { id: string }>(wanted: string[]) =>
        wanted.length ? (results[i++] as { row: T; fingerprint: string }[]) : [];
      const accounts = next<AccountRow>(accountIds);
      const labelRows = next<LabelRow>(labelIds);
      const mediaRows = next<MediaRow>(mediaIds);
      const byId = <T extends { id: string }>(rows: { row: T; fingerprint: string }[]) =>
        new Map(rows.map((r) => [r.row.id, r.row]));
      const prints = (rows: { row: { id: string }; fingerprint: string }[]) =>
        new Map(rows.map((r) => [r.row.id, r.fingerprint]));
      return {
        accounts: byId(accounts),
        labels: byId(labelRows),
        media: byId(mediaRows),
        fingerprints: { accounts: prints(accounts), labels: prints(labelRows), media: prints(mediaRows) },
      };
    },
  };
}

export interface References {
  accounts: Map<string, AccountRow>;
  labels: Map<string, LabelRow>;
  media: Map<string, MediaRow>;
  /** Each row's fingerprint as read (`FINGERPRINTED`), when the rows came from `referenceReads`. */
  fingerprints?: Fingerprints;
}

export interface Fingerprints {
  accounts: Map<string, string>;
  labels: Map<string, string>;
  media: Map<string, string>;
}

/**
 * A row's fingerprint: SQLite's `json_array` of its columns, computed by SQLite both when the row is read and when a
 * guarded write compares it, so equal rows give equal text. Every column takes part except an account's sealed
 * credentials (secret, and large; a token refresh also moves `updated_at`, which does take part).
 */
function fingerprintOf<T extends typeof socialAccounts | typeof labels | typeof media>(table: T, omit: string[] = []) {
  const keys = Object.keys(getTableColumns(table)).filter((k) => !omit.includes(k));
  return { table, sql: jsonRow(table, getTableName(table), keys as never).sql };
}

const FINGERPRINTED = {
  accounts: fingerprintOf(socialAccounts, ["credentials"]),
  labels: fingerprintOf(labels),
  media: fingerprintOf(media),
};

/**
 * The guard of a write built from remembered rows (src/services/posts/reference-memory.ts): true (in SQL) when every
 * row of `refs` is in this workspace with the fingerprint it had when read, evaluated inside the write's own
 * transaction. The `[id, fingerprint]` pairs of each kind, their count and the workspace travel in the inserted row
 * itself (`InsertGuard.extras`, src/db/json-params.ts): the statement's text is the same for every create, so the
 * creates of one group commit insert their posts in one statement (src/db/merged-inserts.ts).
 */
export function referencesUnchanged(
  ctx: WorkspaceContext,
  refs: References,
): Pick<InsertGuard<typeof posts>, "condition" | "extras"> {
  if (!refs.fingerprints) throw new Error("referencesUnchanged: rows without fingerprints");
  const kinds = ["accounts", "labels", "media"] as const;
  const pairs = kinds.map((kind) => [...refs.fingerprints![kind]].filter(([id]) => refs[kind].has(id)));
  const expected = pairs.reduce((n, p) => n + p.length, 0);
  return {
    extras: [...pairs, expected, ctx.workspaceId],
    condition: (extra) => {
      const counts = kinds.map((kind, i) => {
        const { table, sql: fingerprint } = FINGERPRINTED[kind];
        const id = table.id as Column;
        const workspace = table.workspaceId as Column;
        // Per pair, the row by its primary key (a JOIN lets SQLite walk the workspace's index instead, computing the
        // fingerprint of every row there for every pair).
        return sql`(SELECT count(*) FROM json_each(${extra(i)}) AS j WHERE json_extract(j.value, '$[1]') = (SELECT ${sql.raw(fingerprint)} FROM ${table} WHERE ${id} = json_extract(j.value, '$[0]') AND ${workspace} = ${extra(4)}))`;
      });
      return sql`(${sql.join(counts, sql` + `)}) = ${extra(3)}`;
    },
  };
}

/** A new target: the account exists here, is active and connected, and the content type fits its platform. */
export function checkTarget(
  bag: ErrorBag,
  refs: References,
  prefix: string,
  target: { social_account_id: string; content_type: string },
): AccountRow | null {
  const key = `${prefix}.social_account_id`;
  const account = refs.accounts.get(target.social_account_id);
  if (!account) {
    bag.add(key, `The selected ${attribute(key)} is invalid.`);
    return null;
  }
  let ok = true;
  if (!account.isActive) {
    bag.add(key, `The selected ${attribute(key)} is inactive.`);
    ok = false;
  } else if (account.status === "disconnected") {
    bag.add(key, `The selected ${attribute(key)} is disconnected.`);
    ok = false;
  } else if (account.status === "token_expired") {
    bag.add(key, `The selected ${attribute(key)} needs to be reconnected (its session expired).`);
    ok = false;
  }
  if (!checkContentType(bag, `${prefix}.content_type`, account.platform, target.content_type)) ok = false;
  return ok ? account : null;
}

export function checkContentType(bag: ErrorBag, key: string, platform: string, contentType: string): boolean {
  if (contentTypeFitsPlatform(platform, contentType)) return true;
  bag.add(key, `The ${attribute(key)} ${contentType} is not available for ${platform} accounts.`);
  return false;
}

/** Every value of `values` at most once; duplicates get Laravel's `distinct` message. */
export function checkDistinct(bag: ErrorBag, prefix: string, values: (string | undefined)[], suffix = ""): void {
  const seen = new Set<string>();
  values.forEach((v, i) => {
    if (v === undefined) return;
    if (seen.has(v)) {
      const key = `${prefix}.${i}${suffix}`;
      bag.add(key, `The ${attribute(key)} field has a duplicate value.`);
    }
    seen.add(v);
  });
}

/** Holes (`undefined`: items that failed the shape check and are reported there) are skipped. */
export function checkLabels(bag: ErrorBag, refs: References, ids: (string | undefined)[]): LabelRow[] {
  checkDistinct(bag, "label_ids", ids);
  const out: LabelRow[] = [];
  ids.forEach((id, i) => {
    if (id === undefined) return;
    const label = refs.labels.get(id);
    if (!label) bag.add(`label_ids.${i}`, `The selected label ids.${i} is invalid.`);
    else if (!out.includes(label)) out.push(label);
  });
  return out;
}

/** Holes (`undefined`: items that failed the shape check and are reported there) are skipped. */
export function checkMedia(bag: ErrorBag, refs: References, items: ({ id: string } | undefined)[]): MediaRow[] {
  checkDistinct(
    bag,
    "media",
    items.map((m) => m?.id),
    ".id",
  );
  const out: MediaRow[] = [];
  items.forEach((item, i) => {
    if (item === undefined) return;
    const row = refs.media.get(item.id);
    if (!row) bag.add(`media.${i}.id`, `The selected media.${i}.id is invalid.`);
    else if (!out.includes(row)) out.push(row);
  });
  return out;
}

/** `scheduled_at` as epoch ms; undefined when absent, null when explicitly null. */
export function parseScheduledAt(bag: ErrorBag, value: string | null | undefined): number | null | undefined {
  if (value === undefined || value === null) return value;
  const ms = parseUserDateTime(value);
  if (ms === null) bag.add("scheduled_at", "The scheduled at field must be a valid date.");
  return ms ?? undefined;
}

export const SCHEDULED_AT_AFTER_NOW = "The scheduled at field must be a date after now.";
