import { useEffect, useMemo, useState } from "preact/hooks";
import { errorMessage, fieldErrors, type Schema } from "../../sdk/index";
import { api } from "../api";
import { NetworkIcon } from "../components/network";
import { EmptyState, ErrorState, Loading } from "../components/states";
import { StatusBadge, statusLabel } from "../components/status";
import { TimeZoneOptions } from "../components/time-zone-options";
import { useTimeZone } from "../components/time-zone-pref";
import {
  addDays,
  addMonths,
  dateKey,
  dayOf,
  daysRange,
  type LocalDate,
  monthGrid,
  moveToDay,
  moveToSlot,
  parseDateKey,
  sameDay,
  weekDays,
  zonedParts,
} from "../lib/calendar";
import { describeRepeat } from "../lib/compose";
import { excerpt } from "../lib/format";
import { fetchAllPosts, type Post, type PostFilters } from "../lib/post-pages";
import { shownInstant } from "../lib/post-time";
import { formatDay, formatMonth, formatTime, formatWeekdayShort, parseApiTime, toApiTime } from "../lib/time";
import { Link, navigate } from "../router";
import type { PageProps } from "../routes";
import { canEdit } from "../session";
import { useSession } from "../session-context";
import { FreeSlotLinks, useFreeSlots } from "./calendar-free-slots";

type View = "month" | "week";
const STATUSES = ["draft", "scheduled", "publishing", "published", "partially_published", "failed"] as const;
const HOURS = Array.from({ length: 24 }, (_, h) => h);

interface DropError {
  /** The cell the post was dropped on (`dateKey`, or `dateKey@hour` in the week view). */
  cell: string;
  message: string;
}

/** The query string of the calendar's state: view, anchor day and filters live in the URL (shareable, Back works). */
function calendarHref(state: { view: View; date: string; account: string; label: string; status: string }) {
  const q = new URLSearchParams();
  q.set("view", state.view);
  q.set("date", state.date);
  if (state.account) q.set("account", state.account);
  if (state.label) q.set("label", state.label);
  if (state.status) q.set("status", state.status);
  return `/calendar?${q.toString()}`;
}

function useList<T>(load: () => Promise<{ data?: T[] | undefined }>): T[] {
  const [items, setItems] = useState<T[]>([]);
  useEffect(() => {
    void load().then(({ data }) => setItems(data ?? []));
  }, []);
  return items;
}

export default function CalendarPage({ location }: PageProps) {
  const { membership } = useSession();
  const editable = canEdit(membership.role);
  const [timeZone, setTimeZone] = useTimeZone();
  const today = dayOf(Date.now(), timeZone);
  const q = location.query;
  const view: View = q.get("view") === "week" ? "week" : "month";
  const anchor = parseDateKey(q.get("date") ?? "") ?? today;
  const account = q.get("account") ?? "";
  const label = q.get("label") ?? "";
  const status = q.get("status") ?? "";
  const state = { view, date: dateKey(anchor), account, label, status };
  const go = (change: Partial<typeof state>) => navigate(calendarHref({ ...state, ...change }), { replace: true });

  const accounts = useList<Schema<"SocialAccount">>(() => api.GET("/api/social-accounts"));
  const labels = useList<Schema<"Label">>(() => api.GET("/api/labels"));

  const weeks = useMemo(
    () => (view === "month" ? monthGrid(anchor.year, anchor.month) : [weekDays(anchor)]),
    [view, anchor.year, anchor.month, view === "week" ? anchor.day : 0],
  );
  const range = daysRange(weeks.flat(), timeZone);
  // Issue 37: the default queue's empty slots in the week view, for editors.
  const freeSlots = useFreeSlots(editable && view === "week", range, timeZone);

  const [posts, setPosts] = useState<Post[] | null>(null);
  const [complete, setComplete] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  const [dropError, setDropError] = useState<DropError | null>(null);
  const [over, setOver] = useState<string | null>(null);
  const [announce, setAnnounce] = useState("");
  const [focusPost, setFocusPost] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    setPosts(null);
    setError(null);
    setFocusPost(null);
    const filters: PostFilters = { scheduled_from: toApiTime(range.from), scheduled_to: toApiTime(range.to) };
    if (account) filters.social_account_id = account;
    if (label) filters.label_id = label;
    if (status) filters.status = status as PostFilters["status"];
    void fetchAllPosts(filters).then((result) => {
      if (!live) return;
      if (result.ok) {
        setPosts(result.posts);
        setComplete(result.complete);
      } else setError(result.message);
    });
    return () => {
      live = false;
    };
  }, [range.from, range.to, account, label, status, reload]);

  // The "No date" tray (issue 35): drafts without a chosen time have no place on the grid. The API lists posts by
  // `scheduled_at` descending, undated ones last, and has no filter for "no time": the tray reads the drafts matching
  // the filters (at most MAX_PAGES pages) and keeps the undated ones.
  const [undated, setUndated] = useState<Post[]>([]);
  useEffect(() => {
    let live = true;
    setUndated([]);
    if (status && status !== "draft") return;
    const filters: PostFilters = { status: "draft" };
    if (account) filters.social_account_id = account;
    if (label) filters.label_id = label;
    void fetchAllPosts(filters).then((result) => {
      if (live && result.ok) setUndated(result.posts.filter((p) => p.scheduled_at === null));
    });
    return () => {
      live = false;
    };
  }, [account, label, status, reload]);

  /** A post dropped on a cell: the same PUT as any edit; a refusal (422) is shown in the cell it was dropped on. */
  async function reschedule(postId: string, when: number, cell: string) {
    const post = posts?.find((p) => p.id === postId);
    if (!post || !posts) return;
    const before = posts;
    const moved = { ...post, scheduled_at: toApiTime(when).replace("T", " ").replace("Z", "") };
    setDropError(null);
    setPosts(posts.map((p) => (p.id === postId ? moved : p)));
    const { data, error: refused } = await api.PUT("/api/posts/{post}", {
      params: { path: { post: postId } },
      body: { scheduled_at: toApiTime(when) },
    });
    if (data) {
      setPosts((current) => (current ?? []).map((p) => (p.id === postId ? data : p)));
      setAnnounce(`Moved to ${formatDay(dayOf(when, timeZone))}, ${formatTime(when, timeZone)}.`);
      return;
    }
    setPosts(before);
    const fields = fieldErrors(refused);
    setDropError({ cell, message: fields.scheduled_at?.[0] ?? errorMessage(refused, "The post could not be moved.") });
  }

  function dropProps(cell: string, target: (ms: number) => number) {
    if (!editable) return {};
    return {
      onDragOver: (e: DragEvent) => {
        if (!e.dataTransfer?.types.includes("text/plain")) return;
        e.preventDefault();
        if (e.dataTransfer) e.dataTransfer.dropEffect = "move";
        if (over !== cell) setOver(cell);
      },
      onDragLeave: () => setOver((c) => (c === cell ? null : c)),
      onDrop: (e: DragEvent) => {
        e.preventDefault();
        setOver(null);
        const id = e.dataTransfer?.getData("text/plain");
        const post = posts?.find((p) => p.id === id);
        const at = parseApiTime(post?.scheduled_at);
        if (!post || at === null) return;
        const when = target(at);
        if (when !== at) void reschedule(post.id, when, cell);
      },
    };
  }

  /**
   * The keyboard's drag: Alt+←/→ a day earlier or later; Alt+↑/↓ a week (month view) or an hour (week view). The
   * same PUT as a drop; the chip keeps the focus in its new cell.
   */
  function keyMove(key: string, at: number): { when: number; cell: string } | null {
    const day = dayOf(at, timeZone);
    const hour = zonedParts(at, timeZone).hour;
    const days = key === "ArrowLeft" ? -1 : key === "ArrowRight" ? 1 : 0;
    const vertical = key === "ArrowUp" ? -1 : key === "ArrowDown" ? 1 : 0;
    if (!days && !vertical) return null;
    if (view === "month" || days) {
      const target = addDays(day, days || vertical * 7);
      const when = moveToDay(at, target, timeZone);
      return { when, cell: view === "month" ? dateKey(target) : `${dateKey(target)}@${hour}` };
    }
    const when = at + vertical * 3_600_000;
    const t = zonedParts(when, timeZone);
    return { when, cell: `${dateKey(dayOf(when, timeZone))}@${t.hour}` };
  }
  useEffect(() => {
    if (!focusPost) return;
    document.querySelector<HTMLElement>(`.chip[data-post="${focusPost}"]`)?.focus();
  }, [posts, focusPost]);

  const byDay = useMemo(() => {
    const groups = new Map<string, Post[]>();
    // A post sits at the time it went out once published, else at its scheduled time (web/lib/post-time.ts).
    for (const p of posts ?? []) {
      const at = shownInstant(p);
      if (at === null) continue;
      const key = dateKey(dayOf(at, timeZone));
      groups.set(key, [...(groups.get(key) ?? []), p]);
    }
    for (const list of groups.values()) list.sort((a, b) => (shownInstant(a) ?? 0) - (shownInstant(b) ?? 0));
    return groups;
  }, [posts, timeZone]);

  // Plain render functions, not components: a component defined in here would be a new type on every render, and
  // its cells would be replaced while a drag is over them.
  function chip(post: Post) {
    const shown = shownInstant(post);
    const at = shown ?? 0;
    const draggable = editable && post.status === "scheduled";
    const networks = [...new Set(post.platforms.filter((r) => r.enabled).map((r) => r.platform))];
    return (
      <li key={post.id}>
        <Link
          to={`/posts/${post.id}`}
          class={`chip chip-${post.status}`}
          draggable={draggable}
          data-post={post.id}
          aria-keyshortcuts={draggable ? "Alt+ArrowLeft Alt+ArrowRight Alt+ArrowUp Alt+ArrowDown" : undefined}
          onDragStart={(e: DragEvent) => {
            e.dataTransfer?.setData("text/plain", post.id);
            if (e.dataTransfer) e.dataTransfer.effectAllowed = "move";
          }}
          onKeyDown={(e: KeyboardEvent) => {
            if (!draggable || !e.altKey) return;
            const move = keyMove(e.key, at);
            if (!move) return;
            e.preventDefault();
            setFocusPost(post.id);
            void reschedule(post.id, move.when, move.cell);
          }}
        >
          <span class="chip-time">{shown === null ? "No date" : formatTime(at, timeZone)}</span>
          <span class="chip-networks">
            {networks.map((n) => (
              <NetworkIcon key={n} platform={n} />
            ))}
          </span>
          <span class="chip-text">{excerpt(post.content, 60)}</span>
          {/* Issue 37: an occurrence of a repeating post, or an evergreen copy, says so. */}
          {(post.repeat || post.repeat_of) && (
            <span class="chip-repeat" title={post.repeat ? describeRepeat(post.repeat) : "A repeat of an earlier post"}>
              <span aria-hidden="true">↻</span>
              <span class="visually-hidden">
                , {post.repeat ? describeRepeat(post.repeat) : "a repeat of an earlier post"}
              </span>
            </span>
          )}
          <span class="visually-hidden">, {statusLabel(post.status)}</span>
        </Link>
      </li>
    );
  }

  function cellOf(day: LocalDate, cell: string, list: Post[], target: (ms: number) => number) {
    const free = view === "week" ? freeSlots.get(cell) : undefined;
    const outside = view === "month" && day.month !== anchor.month;
    return (
      <td
        key={cell}
        class={`day${outside ? " day-outside" : ""}${sameDay(day, today) ? " day-today" : ""}${over === cell ? " day-over" : ""}`}
        data-testid={`cell-${cell}`}
        {...dropProps(cell, target)}
      >
        {view === "month" && (
          <span class="day-number" aria-hidden="true">
            {day.day}
          </span>
        )}
        <span class="day-label visually-hidden">{formatDay(day)}</span>
        {list.length > 0 && <ul class="chips">{list.map(chip)}</ul>}
        <FreeSlotLinks slots={free} timeZone={timeZone} />
        {dropError?.cell === cell && (
          <p class="drop-error" role="alert">
            {dropError.message}
          </p>
        )}
      </td>
    );
  }

  const step = (n: number) =>
    go({ date: dateKey(view === "month" ? addMonths({ ...anchor, day: 1 }, n) : addDays(anchor, 7 * n)) });
  const days = weeks.flat();
  const period =
    view === "month"
      ? formatMonth(anchor.year, anchor.month)
      : `${formatDay(days[0] as LocalDate)} – ${formatDay(days[6] as LocalDate)}`;

  return (
    <section class="calendar">
      <h1>Calendar</h1>
      <div class="toolbar">
        <fieldset class="segmented">
          <legend class="visually-hidden">View</legend>
          {(["month", "week"] as const).map((v) => (
            <button key={v} type="button" class="button" aria-pressed={view === v} onClick={() => go({ view: v })}>
              {v === "month" ? "Month" : "Week"}
            </button>
          ))}
        </fieldset>
        <div class="stepper">
          <button type="button" class="button" onClick={() => step(-1)}>
            <span aria-hidden="true">‹</span> Previous {view}
          </button>
          <button type="button" class="button" onClick={() => go({ date: dateKey(today) })}>
            Today
          </button>
          <button type="button" class="button" onClick={() => step(1)}>
            Next {view} <span aria-hidden="true">›</span>
          </button>
        </div>
      </div>
      <div class="filters">
        <div>
          <label for="cal-tz">Time zone</label>
          <select
            id="cal-tz"
            value={timeZone}
            onChange={(e) => setTimeZone((e.currentTarget as HTMLSelectElement).value)}
          >
            <TimeZoneOptions current={timeZone} />
          </select>
        </div>
        <div>
          <label for="cal-account">Account</label>
          <select
            id="cal-account"
            value={account}
            onChange={(e) => go({ account: (e.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">All accounts</option>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.display_name} ({a.platform})
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="cal-label">Label</label>
          <select
            id="cal-label"
            value={label}
            onChange={(e) => go({ label: (e.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">All labels</option>
            {labels.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="cal-status">Status</label>
          <select
            id="cal-status"
            value={status}
            onChange={(e) => go({ status: (e.currentTarget as HTMLSelectElement).value })}
          >
            <option value="">All statuses</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <h2 aria-live="polite">{period}</h2>
      <p class="muted small">
        Times in {timeZone}.{" "}
        {editable
          ? "Drag a scheduled post to another day (or hour, in the week view) to reschedule it, or focus it and press Alt with an arrow key."
          : "Your role can read the calendar but not change it."}
      </p>
      <p class="visually-hidden" role="status">
        {announce}
      </p>
      {error ? (
        <ErrorState message={error} onRetry={() => setReload((n) => n + 1)} />
      ) : posts === null ? (
        <Loading label="Loading posts…" />
      ) : (
        <>
          {!complete && (
            <p class="notice">
              This view holds more posts than the calendar shows at once. Filter by account, label or status to see them
              all.
            </p>
          )}
          {view === "month" ? (
            <table class="calendar-table month">
              <caption class="visually-hidden">Posts in {period}</caption>
              <thead>
                <tr>
                  {(weeks[0] ?? []).map((d) => (
                    <th key={dateKey(d)} scope="col">
                      {formatWeekdayShort(d)}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {weeks.map((week) => (
                  <tr key={dateKey(week[0] as LocalDate)}>
                    {week.map((d) => {
                      const key = dateKey(d);
                      return cellOf(d, key, byDay.get(key) ?? [], (ms) => moveToDay(ms, d, timeZone));
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls sideways must be reachable by keyboard (axe scrollable-region-focusable)
            <section class="week-scroll" tabIndex={0} aria-label="Posts of the week">
              <table class="calendar-table week">
                <caption class="visually-hidden">Posts in the week {period}</caption>
                <thead>
                  <tr>
                    <td />
                    {days.map((d) => (
                      <th key={dateKey(d)} scope="col" class={sameDay(d, today) ? "day-today" : ""}>
                        {formatDay(d, "short")}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {HOURS.map((hour) => (
                    <tr key={hour}>
                      <th scope="row" class="hour">
                        {String(hour).padStart(2, "0")}:00
                      </th>
                      {days.map((d) => {
                        const key = dateKey(d);
                        const list = (byDay.get(key) ?? []).filter(
                          (p) => zonedParts(shownInstant(p) ?? 0, timeZone).hour === hour,
                        );
                        return cellOf(d, `${key}@${hour}`, list, (ms) => moveToSlot(ms, d, hour, timeZone));
                      })}
                    </tr>
                  ))}
                </tbody>
              </table>
            </section>
          )}
          {posts.length === 0 && (
            <EmptyState
              title={
                account || label || status
                  ? "No posts match these filters here"
                  : `Nothing planned in ${view === "month" ? "this month" : "this week"}`
              }
            >
              <p>
                {account || label || status ? (
                  <>
                    <button type="button" class="button" onClick={() => go({ account: "", label: "", status: "" })}>
                      Clear the filters
                    </button>{" "}
                    or look at another {view}.
                  </>
                ) : editable ? (
                  <>
                    <Link to="/compose">Write a post</Link> and schedule it, or look at another {view}.
                  </>
                ) : (
                  <>Look at another {view}, or ask an editor to schedule posts.</>
                )}
              </p>
            </EmptyState>
          )}
          {undated.length > 0 && (
            <section class="no-date" aria-labelledby="no-date-heading">
              <h2 id="no-date-heading">No date</h2>
              <p class="muted small">Drafts without a chosen time: open one to pick its time and schedule it.</p>
              <ul class="chips" data-testid="no-date">
                {undated.map(chip)}
              </ul>
            </section>
          )}
          <ul class="legend" aria-label="Status colours">
            {STATUSES.map((s) => (
              <li key={s}>
                <StatusBadge status={s} />
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
