import { useEffect, useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../sdk/index";
import { api } from "../api";
import { LabelChip } from "../components/label-chip";
import { NetworkIcon } from "../components/network";
import { DeletePostControl, DuplicateButton } from "../components/post-actions";
import { EmptyState, ErrorState, Loading } from "../components/states";
import { StatusBadge, statusLabel } from "../components/status";
import { useTimeZone } from "../components/time-zone-pref";
import { addDays, parseDateKey, zonedToUtc } from "../lib/calendar";
import { excerpt } from "../lib/format";
import type { PostFilters } from "../lib/post-pages";
import { shownAt, type TimedPost } from "../lib/post-time";
import { formatDateTime, toApiTime } from "../lib/time";
import { Link, navigate } from "../router";
import type { PageProps } from "../routes";
import { canEdit } from "../session";
import { useSession } from "../session-context";

/** The list's "When": the time a post went out once published, else its scheduled time; "No date" for an undated draft. */
function whenText(post: TimedPost, timeZone: string): string {
  const { at, kind } = shownAt(post);
  if (at === null) return "No date";
  return kind === "published" ? `Published ${formatDateTime(at, timeZone)}` : formatDateTime(at, timeZone);
}

const STATUSES = ["draft", "scheduled", "publishing", "published", "partially_published", "failed"] as const;
const FILTER_KEYS = ["status", "label", "account", "from", "to"] as const;
type FilterKey = (typeof FILTER_KEYS)[number];

/** The list's state in the URL: `/posts?status=failed&from=2026-11-01&page=2`. */
function postsHref(values: Partial<Record<FilterKey | "page", string>>) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `/posts?${s}` : "/posts";
}

const DELETED = "The post was deleted. Anything it had published stays on the networks.";

export default function PostsPage({ location }: PageProps) {
  const { membership } = useSession();
  const [timeZone] = useTimeZone();
  const q = location.query;
  const values = Object.fromEntries(FILTER_KEYS.map((k) => [k, q.get(k) ?? ""])) as Record<FilterKey, string>;
  const page = q.get("page") ?? "1";
  const [result, setResult] = useState<Schema<"PostPage"> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  // Issue 40: what a row action did (or why it was refused), said at the top of the list.
  const [note, setNote] = useState<string | null>(null);
  const editable = canEdit(membership.role);
  const [accounts, setAccounts] = useState<Schema<"SocialAccount">[]>([]);
  const [labels, setLabels] = useState<Schema<"Label">[]>([]);

  useEffect(() => {
    void api.GET("/api/social-accounts").then(({ data }) => setAccounts(data ?? []));
    void api.GET("/api/labels").then(({ data }) => setLabels(data ?? []));
  }, []);

  useEffect(() => {
    let live = true;
    setResult(null);
    setError(null);
    const query: PostFilters = { page };
    if (values.status) query.status = values.status as PostFilters["status"];
    if (values.label) query.label_id = values.label;
    if (values.account) query.social_account_id = values.account;
    // The date range is whole days in the person's time zone: from the first day's midnight to the one after the last.
    const from = parseDateKey(values.from);
    const to = parseDateKey(values.to);
    if (from) query.scheduled_from = toApiTime(zonedToUtc({ ...from, hour: 0, minute: 0, second: 0 }, timeZone));
    if (to) query.scheduled_to = toApiTime(zonedToUtc({ ...addDays(to, 1), hour: 0, minute: 0, second: 0 }, timeZone));
    void api.GET("/api/posts", { params: { query } }).then(({ data, error: failed }) => {
      if (!live) return;
      if (data) setResult(data);
      else setError(errorMessage(failed, "The posts could not be loaded."));
    });
    return () => {
      live = false;
    };
  }, [location.query.toString(), timeZone, reload]);

  const set = (key: FilterKey, value: string) => navigate(postsHref({ ...values, [key]: value }), { replace: true });
  const filtered = FILTER_KEYS.some((k) => values[k]);

  return (
    <section>
      <h1>Posts</h1>
      <div class="toast-region" role="status">
        {(note ?? (q.get("deleted") === "1" ? DELETED : null)) && <p class="notice">{note ?? DELETED}</p>}
      </div>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <div>
          <label for="posts-status">Status</label>
          <select id="posts-status" value={values.status} onChange={(e) => set("status", e.currentTarget.value)}>
            <option value="">All statuses</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {statusLabel(s)}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="posts-label">Label</label>
          <select id="posts-label" value={values.label} onChange={(e) => set("label", e.currentTarget.value)}>
            <option value="">All labels</option>
            {labels.map((l) => (
              <option key={l.id} value={l.id}>
                {l.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="posts-account">Account</label>
          <select id="posts-account" value={values.account} onChange={(e) => set("account", e.currentTarget.value)}>
            <option value="">All accounts</option>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.display_name} ({a.platform})
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="posts-from">Scheduled from</label>
          <input id="posts-from" type="date" value={values.from} onChange={(e) => set("from", e.currentTarget.value)} />
        </div>
        <div>
          <label for="posts-to">Scheduled until</label>
          <input id="posts-to" type="date" value={values.to} onChange={(e) => set("to", e.currentTarget.value)} />
        </div>
        {filtered && (
          <button type="button" class="button" onClick={() => navigate("/posts", { replace: true })}>
            Clear filters
          </button>
        )}
      </form>
      <p class="muted small">Times in {timeZone}; latest scheduled first, 15 to a page.</p>
      {error ? (
        <ErrorState message={error} onRetry={() => setReload((n) => n + 1)} />
      ) : !result ? (
        <Loading label="Loading posts…" />
      ) : result.data.length === 0 ? (
        <EmptyState title={filtered ? "No posts match these filters" : "No posts yet"}>
          <p>
            {filtered ? (
              <Link to="/posts">Clear the filters</Link>
            ) : canEdit(membership.role) ? (
              <>
                <Link to="/compose">Write your first post</Link>: pick the accounts, write once, adjust per network.
              </>
            ) : (
              "Editors of this workspace have not written any posts yet."
            )}
          </p>
        </EmptyState>
      ) : (
        <>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls sideways must be reachable by keyboard (axe scrollable-region-focusable) */}
          <section class="table-scroll" tabIndex={0} aria-label="Posts">
            <table class="table">
              <caption class="visually-hidden">
                Posts {result.meta.from}–{result.meta.to} of {result.meta.total}
              </caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Post</th>
                  <th scope="col">Networks</th>
                  <th scope="col">Status</th>
                  <th scope="col">Labels</th>
                  {editable && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {result.data.map((p) => (
                  <tr key={p.id}>
                    <td>{whenText(p, timeZone)}</td>
                    <td>
                      <Link to={`/posts/${p.id}`}>{excerpt(p.content)}</Link>
                    </td>
                    <td>
                      {[...new Set(p.platforms.filter((r) => r.enabled).map((r) => r.platform))].map((n) => (
                        <NetworkIcon key={n} platform={n} />
                      ))}
                    </td>
                    <td>
                      <StatusBadge status={p.status} />
                    </td>
                    <td>
                      {p.labels.map((l) => (
                        <LabelChip key={l.id} name={l.name} color={l.color} />
                      ))}
                    </td>
                    {editable && (
                      <td class="row-actions">
                        <DuplicateButton postId={p.id} label="Duplicate" onError={setNote} />
                        <DeletePostControl
                          postId={p.id}
                          label="Delete"
                          onDeleted={() => {
                            setNote(DELETED);
                            setReload((n) => n + 1);
                          }}
                          onError={setNote}
                        />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
          <nav class="pagination" aria-label="Pages">
            <p class="muted small">
              {result.meta.from}–{result.meta.to} of {result.meta.total}
            </p>
            <ul>
              {result.meta.links.map((l) => {
                const text = l.label.replace("&laquo;", "‹").replace("&raquo;", "›");
                return (
                  <li key={l.label}>
                    {l.page === null ? (
                      <span class="button" aria-disabled="true">
                        {text}
                      </span>
                    ) : (
                      <Link
                        class="button"
                        to={postsHref({ ...values, page: String(l.page) })}
                        aria-current={l.active ? "page" : undefined}
                      >
                        {text}
                      </Link>
                    )}
                  </li>
                );
              })}
            </ul>
          </nav>
        </>
      )}
    </section>
  );
}
