/**
 * Issue 37 (docs/queues.md, "Repeating posts"): a post's series rule and when its occurrences fall. Pure code.
 *
 * Occurrence n of a series (0 = the first post) falls `n × every` units after the series' anchor — the first
 * occurrence's scheduled time, or the occurrence whose rule was last changed — on the wall clock of the rule's time
 * zone, so a 09:00 post stays at 09:00 across daylight-saving changes (a time the clocks skip moves forward by the
 * gap, a repeated one is its first occurrence: web/lib/calendar.ts `zonedToUtc`). A month step keeps the anchor's
 * day, or the month's last day when it has fewer (Jan 31 → Feb 28 → Mar 31). Counting from the anchor, never from
 * the previous occurrence, so no clamp or late publish ever drifts the series.
 */
import { addDays, addMonths, zonedParts, zonedToUtc } from "../../../web/lib/calendar";
import type { RepeatRule } from "../../db/schema";
import { formatYmdHis, parseUserDateTime } from "../../lib/time";

export const REPEAT_EVERY_MAX = 365;
export const REPEAT_COUNT_MAX = 100;
export const REPEAT_VARIATIONS_MIN = 2;
export const REPEAT_VARIATIONS_MAX = 20;

/** The rule as stored: what the API shows, plus the anchor the occurrences count from (not presented). */
export interface StoredRepeat extends RepeatRule {
  /** Epoch ms of the anchor occurrence's time, set when the series first continues; absent until then. */
  anchor_at?: number;
  /** The anchor occurrence's `repeat_index`. */
  anchor_index?: number;
}

/** What a client sends (`repeat` on POST/PUT /api/posts), already shape-checked by the route's schema. */
export interface RepeatInput {
  every: number;
  unit: "day" | "week" | "month";
  until?: string | null;
  count?: number | null;
  variations?: string[] | null;
  time_zone?: string | null;
}

/** The stored rule for a request's `repeat` (the anchor is set later, when the series first continues). */
export function storedRepeat(input: RepeatInput): StoredRepeat {
  const rule: StoredRepeat = { every: input.every, unit: input.unit, time_zone: input.time_zone ?? "UTC" };
  const until = input.until ? parseUserDateTime(input.until) : null;
  if (until !== null) rule.until = formatYmdHis(until);
  if (input.count) rule.count = input.count;
  if (input.variations && input.variations.length > 0) rule.variations = input.variations;
  return rule;
}

/**
 * The rule a PUT leaves on a post: the one sent, counting from this post — or, when it is the rule the post already
 * has (the dashboard sends it with every save), the stored one with its anchor, so re-saving never moves the series.
 */
export function replacedRepeat(stored: StoredRepeat | null, input: RepeatInput | null): StoredRepeat | null {
  if (!input) return null;
  const next = storedRepeat(input);
  return stored && JSON.stringify(presentRepeat(stored)) === JSON.stringify(presentRepeat(next)) ? stored : next;
}

/** The rule as the Post resource shows it: every key present, the anchor left out. */
export function presentRepeat(rule: StoredRepeat | null) {
  if (!rule) return null;
  return {
    every: rule.every,
    unit: rule.unit,
    until: rule.until ?? null,
    count: rule.count ?? null,
    variations: rule.variations ?? null,
    time_zone: rule.time_zone,
  };
}

/** The instant `steps × every` units after `anchorAt`, on the rule's wall clock. */
export function stepFrom(rule: RepeatRule, anchorAt: number, steps: number): number {
  const wall = zonedParts(anchorAt, rule.time_zone);
  const date = { year: wall.year, month: wall.month, day: wall.day };
  const n = steps * rule.every;
  const day = rule.unit === "month" ? addMonths(date, n) : addDays(date, rule.unit === "week" ? 7 * n : n);
  // The wall clock reads whole seconds: the anchor's milliseconds are carried over as they were.
  const ms = anchorAt - Math.floor(anchorAt / 1000) * 1000;
  return zonedToUtc({ ...day, hour: wall.hour, minute: wall.minute, second: wall.second }, rule.time_zone) + ms;
}

// The longest a step can be (a month: 31 days), so a jump by elapsed time never passes an occurrence still to come.
const UNIT_MS = { day: 86_400_000, week: 7 * 86_400_000, month: 31 * 86_400_000 } as const;

export interface NextOccurrence {
  index: number;
  at: number;
}

/**
 * The occurrence after `index` that falls after `now`: its index and time. Occurrences whose time has already gone
 * by (a paused queue, a late publish) are skipped and count towards `count`. Null when the series has ended: `count`
 * occurrences in all (the first included), or the next time after `until`.
 */
export function nextOccurrence(
  rule: StoredRepeat,
  index: number,
  scheduledAt: number,
  now: number,
): NextOccurrence | null {
  const anchorAt = rule.anchor_at ?? scheduledAt;
  const anchorIndex = rule.anchor_index ?? index;
  const until = rule.until ? parseUserDateTime(rule.until) : null;
  // Jump close to now without walking every past step (a daily series a year late); the walk below finishes it.
  const behind = Math.floor((now - anchorAt) / (UNIT_MS[rule.unit] * rule.every)) - 1;
  let n = Math.max(index + 1, anchorIndex + behind);
  for (let guard = 0; guard < 1_000; guard++, n++) {
    if (rule.count !== undefined && n >= rule.count) return null;
    const at = stepFrom(rule, anchorAt, n - anchorIndex);
    if (until !== null && at > until) return null;
    if (at > now) return { index: n, at };
  }
  return null;
}

/** The text occurrence `index` publishes: variations in turn after the first (which is the post as written). */
export function occurrenceContent(rule: RepeatRule, index: number, content: string | null): string | null {
  const variations = rule.variations;
  if (!variations || variations.length === 0 || index === 0) return content;
  return variations[(index - 1) % variations.length] ?? content;
}
