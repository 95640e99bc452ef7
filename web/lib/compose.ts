/**
 * The composer's pure parts: its state as the API's request body (PUT /api/posts/{post}), the field paths a 422 can
 * name in it, and which network tab holds a path. Row N of the body is row N of the post (existing rows in the
 * post's order, then the added ones), so `platforms.N.…` of a 422 — from the shape check (request index) or the
 * schedule rules (post index) — names the same tab.
 */

// The generated types themselves (not sdk/index, which needs the DOM's fetch types): this module is also
// type-checked with the server's settings through its tests.
import type { components } from "../../sdk/schema";

type Schema<Name extends keyof components["schemas"]> = components["schemas"][Name];

type UpdatePost = Schema<"UpdatePostRequest">;
type ContentType = NonNullable<NonNullable<UpdatePost["platforms"]>[number]["content_type"]>;

/** A meta field as GET /api/content-types describes it (src/catalog/meta-fields.ts). */
export interface MetaFieldInfo {
  name: string;
  type: "string" | "url" | "integer" | "number" | "boolean" | "enum" | "string_list";
  description: string;
  content_types?: string[];
  max_length?: number;
  values?: string[];
  max_items?: number;
  min?: number;
  default?: string | number | boolean;
}

export interface ComposerRow {
  accountId: string;
  platform: string;
  /** The post-platform row's id once the post has it. */
  rowId: string | null;
  enabled: boolean;
  contentType: string;
  /** The row has its own text (else the post's). */
  ownText: boolean;
  content: string;
  thread: { content: string }[];
  firstComment: string;
  /** Meta field values as typed (strings; booleans "true"/"false", lists comma-separated). */
  meta: Record<string, string>;
}

/** The meta fields a row of this content type reads. */
export const metaFieldsFor = (fields: readonly MetaFieldInfo[], contentType: string) =>
  fields.filter((f) => !f.content_types || f.content_types.includes(contentType));

/** Typed values → the meta patch: blank removes the key (null), numbers, booleans and lists as the API wants them. */
export function metaPatch(fields: readonly MetaFieldInfo[], values: Record<string, string>): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const f of fields) {
    const raw = (values[f.name] ?? "").trim();
    if (raw === "") {
      patch[f.name] = null;
      continue;
    }
    switch (f.type) {
      case "integer":
      case "number": {
        const n = Number(raw);
        // Not a number: sent as typed, so the API's message names the field.
        patch[f.name] = Number.isFinite(n) ? n : raw;
        break;
      }
      case "boolean":
        patch[f.name] = raw === "true";
        break;
      case "string_list":
        patch[f.name] = raw
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      default:
        patch[f.name] = raw;
    }
  }
  return patch;
}

/** A row's stored meta → the values the form shows. */
export function metaValues(fields: readonly MetaFieldInfo[], meta: Record<string, unknown> | null | undefined) {
  const values: Record<string, string> = {};
  for (const f of fields) {
    const v = meta?.[f.name];
    if (v === undefined || v === null) continue;
    values[f.name] = Array.isArray(v) ? v.join(", ") : String(v);
  }
  return values;
}

/**
 * The button pressed: "draft" saves as (or moves back to) a draft; "schedule" schedules; "save" saves the edits of a
 * scheduled post and keeps it scheduled ("Save changes"); "publish" publishes now; "queue" schedules it in a queue's
 * next free slot ("Add to queue — Tue 09:00", issue 37).
 */
export type ComposeAction = "draft" | "schedule" | "save" | "publish" | "queue";

/** The status a button's PUT asks for. */
export const statusOf = (action: ComposeAction) =>
  action === "draft" ? ("draft" as const) : action === "publish" ? ("publishing" as const) : ("scheduled" as const);

export interface ComposerState {
  content: string;
  mediaIds: string[];
  labelIds: string[];
  rows: ComposerRow[];
  /** ISO 8601 UTC, or null when none is set. */
  scheduledAt: string | null;
  /** Issue 37: the repeat rule to save (null: the post does not repeat); absent leaves it as it is. */
  repeat?: Schema<"RepeatRequest">;
}

/** Issue 37: the composer's "Repeat" settings as typed. */
export interface RepeatDraft {
  on: boolean;
  every: string;
  unit: "day" | "week" | "month";
  ends: "never" | "count" | "until";
  count: string;
  /** `YYYY-MM-DD` in the composer's time zone: the last day an occurrence may fall on. */
  until: string;
  variations: string[];
}

type Repeat = NonNullable<Schema<"Post">["repeat"]>;

/** The settings a post's rule shows as (off with a weekly default when it has none). */
export function repeatDraftOf(repeat: Repeat | null | undefined, untilDay: (utc: string) => string): RepeatDraft {
  if (!repeat) return { on: false, every: "1", unit: "week", ends: "never", count: "4", until: "", variations: [] };
  return {
    on: true,
    every: String(repeat.every),
    unit: repeat.unit,
    ends: repeat.count ? "count" : repeat.until ? "until" : "never",
    count: String(repeat.count ?? 4),
    until: repeat.until ? untilDay(repeat.until) : "",
    variations: repeat.variations ?? [],
  };
}

/**
 * The `repeat` of the PUT body: null when off; numbers as typed when they are not numbers (the API's message then
 * names the field); `until` the end of that day in the composer's zone (`untilUtc`); blank variations dropped.
 */
export function repeatRequestOf(
  d: RepeatDraft,
  timeZone: string,
  untilUtc: (day: string) => string | null,
): Schema<"RepeatRequest"> {
  if (!d.on) return null;
  const num = (v: string) => (Number.isFinite(Number(v)) && v.trim() !== "" ? Number(v) : (v as unknown as number));
  const variations = d.variations.filter((v) => v.trim() !== "");
  return {
    every: num(d.every),
    unit: d.unit,
    time_zone: timeZone,
    ...(d.ends === "count" ? { count: num(d.count) } : {}),
    ...(d.ends === "until" ? { until: untilUtc(d.until) ?? d.until } : {}),
    ...(variations.length > 0 ? { variations } : {}),
  };
}

const UNIT_WORDS = { day: ["day", "days"], week: ["week", "weeks"], month: ["month", "months"] } as const;

/** "Repeats every week, 4 times in all" — how the post page and the calendar name a rule. */
export function describeRepeat(repeat: Repeat, untilText?: (utc: string) => string): string {
  const [one, many] = UNIT_WORDS[repeat.unit];
  const every = repeat.every === 1 ? `every ${one}` : `every ${repeat.every} ${many}`;
  const end = repeat.count
    ? `, ${repeat.count} times in all`
    : repeat.until
      ? `, until ${untilText ? untilText(repeat.until) : repeat.until}`
      : "";
  const texts = repeat.variations ? ` (${repeat.variations.length} texts in turn)` : "";
  return `Repeats ${every}${end}${texts}`;
}

export interface NetworkRules {
  thread: boolean;
  firstComment: boolean;
  metaFields: readonly MetaFieldInfo[];
}

/** The PUT body for the composer's state and the button pressed. */
export function updateBody(
  state: ComposerState,
  action: ComposeAction,
  rules: (platform: string) => NetworkRules,
  queueId?: string,
  /** With "queue": exactly this slot of the queue (`Y-m-d H:i:s` UTC, the calendar's free slot). */
  slotAt?: string | null,
): UpdatePost {
  return {
    status: statusOf(action),
    // Added to a queue, the slot gives the time: `scheduled_at` is not sent with `queue_id`.
    ...(action === "queue" && queueId ? { queue_id: queueId } : {}),
    content: state.content,
    media: state.mediaIds.map((id) => ({ id })),
    label_ids: state.labelIds,
    ...(state.repeat !== undefined ? { repeat: state.repeat } : {}),
    // No time chosen: null — a draft stays undated (not the API's default of today 09:00 UTC), and scheduling
    // without a time is refused on the "Publish at" field.
    ...(action === "queue" && queueId ? (slotAt ? { scheduled_at: slotAt } : {}) : { scheduled_at: state.scheduledAt }),
    platforms: state.rows.map((row) => {
      const r = rules(row.platform);
      const fields = metaFieldsFor(r.metaFields, row.contentType);
      return {
        ...(row.rowId ? { id: row.rowId } : { social_account_id: row.accountId }),
        enabled: row.enabled,
        content_type: row.contentType as ContentType,
        content: row.ownText ? row.content : null,
        ...(r.thread ? { thread: row.thread.map((t) => ({ content: t.content })) } : {}),
        ...(r.firstComment ? { first_comment: row.firstComment.trim() === "" ? null : row.firstComment } : {}),
        ...(fields.length > 0 ? { meta: metaPatch(fields, row.meta) } : {}),
      };
    }),
  };
}

/** Every path a 422 may name that the composer shows beside a control, in the page's order. */
export function shownFields(state: ComposerState, rules: (platform: string) => NetworkRules): string[] {
  const shown = ["platforms", "content", "signature_id", "media"];
  state.mediaIds.forEach((_, i) => {
    shown.push(`media.${i}.alt`);
  });
  state.rows.forEach((row, i) => {
    const p = `platforms.${i}`;
    const r = rules(row.platform);
    shown.push(p, `${p}.content_type`, `${p}.content`);
    row.thread.forEach((_, j) => {
      shown.push(`${p}.thread.${j}.content`);
    });
    if (r.thread) shown.push(`${p}.thread`);
    if (r.firstComment) shown.push(`${p}.first_comment`);
    for (const f of metaFieldsFor(r.metaFields, row.contentType)) shown.push(`${p}.meta.${f.name}`);
  });
  shown.push("label_ids", "repeat", "repeat.every", "repeat.unit", "repeat.count", "repeat.until", "repeat.variations");
  (state.repeat?.variations ?? []).forEach((_, i) => {
    shown.push(`repeat.variations.${i}`);
  });
  shown.push("scheduled_at", "queue_id", "status");
  return shown;
}

/** The row (index) whose tab shows a field path, or null for the post's own fields. */
export function rowOfPath(path: string | null): number | null {
  const m = path ? /^platforms\.(\d+)(?:\.|$)/.exec(path) : null;
  return m ? Number(m[1]) : null;
}

/**
 * The POST /api/posts body of a new post: its targets and text (meta and the rest follow in the PUT). `scheduledAt`
 * is null when no time is chosen, so the draft is undated rather than the API's default (today 09:00 UTC); the
 * composer passes the chosen time only when scheduling, so a time gone by is refused before anything is created.
 */
export function createBody(
  content: string,
  rows: readonly ComposerRow[],
  scheduledAt: string | null = null,
): Schema<"CreatePostRequest"> {
  return {
    content,
    scheduled_at: scheduledAt,
    platforms: rows.map((r) => ({ social_account_id: r.accountId, content_type: r.contentType as ContentType })),
  };
}
