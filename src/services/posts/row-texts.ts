import { and } from "drizzle-orm";
import {
  FIRST_COMMENT_UNSUPPORTED,
  supportsFirstComment,
  supportsThread,
  THREAD_UNSUPPORTED,
} from "../../catalog/follow-ups";
import type { RuleMedia } from "../../catalog/media-rules";
import type { WorkspaceContext } from "../../context";
import { eqFilterOnly, inJsonArray } from "../../db/json-params";
import { media, signatures, type ThreadItem } from "../../db/schema";
import { CONTENT_MAX_CHARACTERS } from "../../lib/bounds";
import type { ErrorBag } from "../../lib/errors";
import { RULE_MEDIA_COLUMNS } from "../media/rule-media";
import { attribute, type References } from "./references";

/**
 * Issue 20 (docs/threads.md): a request's per-row texts — `content`, `thread`, `first_comment` — checked where they
 * are written (the network takes them, the media they name exist here) and turned into the row's columns.
 */
export interface RowTextsInput {
  content?: string | null;
  thread?: ({ content: string; media?: ({ id: string } | undefined)[] } | undefined)[] | null;
  first_comment?: string | null;
}

/** The three columns as a planned row holds them. */
export interface RowTextColumns {
  content: string | null;
  thread: ThreadItem[] | null;
  firstComment: string | null;
}

/** Every media id the thread items of `inputs` name (for the one reference read). */
export const threadMediaIds = (inputs: (RowTextsInput | undefined)[]) =>
  inputs.flatMap((p) => (p?.thread ?? []).flatMap((item) => (item?.media ?? []).map((m) => m?.id)));

/**
 * Applies what the request sets to `row` (fields not sent are left alone; null or [] clears). A thread or a first
 * comment on a network that takes none is refused here, whatever the post's status: the platform of a row never
 * changes. Unknown media of a thread item: `platforms.N.thread.M.media.K.id`.
 */
export function applyRowTexts(
  bag: ErrorBag,
  refs: References,
  prefix: string,
  platform: string,
  input: RowTextsInput,
  row: RowTextColumns,
): void {
  if (input.content !== undefined) row.content = input.content;
  if (input.thread !== undefined) {
    const items = input.thread ?? [];
    if (items.length > 0 && !supportsThread(platform)) bag.add(`${prefix}.thread`, THREAD_UNSUPPORTED);
    const stored: ThreadItem[] = [];
    items.forEach((item, i) => {
      if (item === undefined) return;
      const ids: string[] = [];
      (item.media ?? []).forEach((m, j) => {
        if (m === undefined) return;
        const key = `${prefix}.thread.${i}.media.${j}.id`;
        if (!refs.media.has(m.id)) bag.add(key, `The selected ${attribute(key)} is invalid.`);
        else if (ids.includes(m.id)) bag.add(key, `The ${attribute(key)} field has a duplicate value.`);
        else ids.push(m.id);
      });
      if (item.content.trim() === "" && ids.length === 0 && (item.media ?? []).length === 0) {
        bag.add(`${prefix}.thread.${i}.content`, `Thread item ${i + 1} needs text or media.`);
      }
      stored.push({ content: item.content, media: ids });
    });
    row.thread = stored.length > 0 ? stored : null;
  }
  if (input.first_comment !== undefined) {
    if (input.first_comment !== null && !supportsFirstComment(platform)) {
      bag.add(`${prefix}.first_comment`, FIRST_COMMENT_UNSUPPORTED);
    }
    row.firstComment = input.first_comment === null || input.first_comment.trim() === "" ? null : input.first_comment;
  }
}

/** The rule columns of the media thread items name, by id; no statement when there are none. */
export async function loadThreadMedia(
  ctx: WorkspaceContext,
  threads: (ThreadItem[] | null | undefined)[],
): Promise<Map<string, RuleMedia>> {
  const ids = [...new Set(threads.flatMap((t) => (t ?? []).flatMap((item) => item.media)))];
  if (ids.length === 0) return new Map();
  const rows = await ctx.db
    .select({ id: media.id, ...RULE_MEDIA_COLUMNS })
    .from(media)
    .where(and(inJsonArray(media.id, ids), eqFilterOnly(media.workspaceId, ctx.workspaceId)));
  return new Map(rows.map((r) => [r.id, r]));
}

/** A stored thread with each item's media resolved for the rules (media gone since are left out). */
export const threadForRules = (thread: ThreadItem[] | null | undefined, byId: ReadonlyMap<string, RuleMedia>) =>
  (thread ?? []).map((item) => ({
    content: item.content,
    media: item.media.flatMap((id) => {
      const m = byId.get(id);
      return m ? [m] : [];
    }),
  }));

/** Signatures a request applies, by id (one statement, none when the request applies none). */
export async function loadSignatures(ctx: WorkspaceContext, ids: (string | undefined)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((id): id is string => id !== undefined))];
  if (wanted.length === 0) return new Map();
  const rows = await ctx.db
    .select({ id: signatures.id, content: signatures.content })
    .from(signatures)
    .where(and(inJsonArray(signatures.id, wanted), eqFilterOnly(signatures.workspaceId, ctx.workspaceId)));
  return new Map(rows.map((r) => [r.id, r.content]));
}

const codePoints = (s: string) => [...s].length;

/**
 * `text` with the signature appended after a blank line (just the signature when the text is empty); checked
 * against the API's 10000-character cap at `key`. The per-network caps are the schedule rules' business.
 */
export function appendSignature(
  bag: ErrorBag,
  key: string,
  signatureKey: string,
  found: ReadonlyMap<string, string>,
  signatureId: string,
  text: string | null,
): string | null {
  const signature = found.get(signatureId);
  if (signature === undefined) {
    bag.add(signatureKey, `The selected ${attribute(signatureKey)} is invalid.`);
    return text;
  }
  const base = (text ?? "").replace(/\s+$/u, "");
  const next = base === "" ? signature : `${base}\n\n${signature}`;
  if (codePoints(next) > CONTENT_MAX_CHARACTERS) {
    bag.add(
      key,
      `The ${attribute(key)} field must not be greater than ${CONTENT_MAX_CHARACTERS} characters with the signature (${codePoints(next)}).`,
    );
  }
  return next;
}
