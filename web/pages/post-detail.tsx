import { useEffect, useRef, useState } from "preact/hooks";
import { errorMessage, fieldErrors, type Schema } from "../../sdk/index";
import { webLink } from "../../src/lib/web-link";
import { api } from "../api";
import { LabelChip } from "../components/label-chip";
import { MetricsChart } from "../components/metrics-chart";
import { NetworkIcon, networkName } from "../components/network";
import { DeletePostControl, DuplicateButton } from "../components/post-actions";
import { QueueNote } from "../components/queue-note";
import { ErrorState, Loading } from "../components/states";
import { StatusBadge, statusLabel } from "../components/status";
import { useTimeZone } from "../components/time-zone-pref";
import { describeRepeat } from "../lib/compose";
import { apiTimeToInput, formatApiTime, formatTime, inputToApiTime, toApiTime } from "../lib/time";
import { Link, navigate } from "../router";
import type { PageProps } from "../routes";
import { canEdit } from "../session";
import { useSession } from "../session-context";

type Post = Schema<"Post">;
type Row = Schema<"PostPlatform">;
type MetricsEntry = Schema<"MetricsEntry">;

/** Metrics answers are cached for 5 minutes per row by the server: asking sooner returns the same numbers. */
const METRICS_TTL_MS = 5 * 60_000;
/** While rows are publishing, the page reads the post again: every 1.5 s for the first minute, then every 10 s. */
const FAST_POLL_MS = 1500;
const FAST_POLLS = 40;
const PUBLISHING_POLL_MS = 10_000;
const PUBLISHING_NOW = "Publishing now: this page follows it until every network has answered.";

/** Whether a row of the post is still on its way: the post is publishing, or an enabled row is. */
const unsettled = (post: Post) =>
  post.status === "publishing" || post.platforms.some((r) => r.enabled && r.status === "publishing");

const EDITABLE = new Set(["draft", "scheduled", "failed", "partially_published"]);

function RowState({ row }: { row: Row }) {
  if (!row.enabled) return <p class="muted small">Turned off for this post: not published.</p>;
  if (row.status === "failed")
    return (
      <p class="row-error">
        {row.error_message ?? "The network refused the post."} Not tried again by itself: retry the failed networks
        below.
      </p>
    );
  if (row.status === "publishing")
    return row.error_message ? (
      <p class="row-warning">
        {row.error_message} The network is tried again automatically (the wait grows with each try, up to 5 tries).
      </p>
    ) : (
      <p class="muted small">Being published now.</p>
    );
  if (row.status === "pending") return <p class="muted small">Waits for the post's scheduled time.</p>;
  return null;
}

export default function PostDetailPage({ params }: PageProps) {
  const { membership } = useSession();
  const editable = canEdit(membership.role);
  const [timeZone] = useTimeZone();
  const id = params.id ?? "";
  const [post, setPost] = useState<Post | null>(null);
  const [error, setError] = useState<{ status: number; message: string } | null>(null);
  const [reload, setReload] = useState(0);
  const [metrics, setMetrics] = useState<MetricsEntry[] | null>(null);
  const [metricsError, setMetricsError] = useState<string | null>(null);
  const [metricsAt, setMetricsAt] = useState<number | null>(null);
  const [when, setWhen] = useState("");
  const [whenError, setWhenError] = useState<string | null>(null);
  const [action, setAction] = useState<{ busy: boolean; message: string | null; error: string | null }>({
    busy: false,
    message: null,
    error: null,
  });

  useEffect(() => {
    let live = true;
    void api.GET("/api/posts/{post}", { params: { path: { post: id } } }).then(({ data, error: failed, response }) => {
      if (!live) return;
      if (data) {
        setPost(data);
        setError(null);
        setWhen(apiTimeToInput(data.scheduled_at, timeZone) ?? "");
      } else setError({ status: response.status, message: errorMessage(failed, "The post could not be loaded.") });
    });
    return () => {
      live = false;
    };
  }, [id, reload, timeZone]);

  // A post being published (after "Publish now", or claimed by the scheduler): read it again until every row has
  // settled (published or failed), soon at first, then less often; the page then shows each network's result.
  const polls = useRef(0);
  useEffect(() => {
    if (!post || !unsettled(post)) {
      // Followed to the end: the notice says how it went (each network's row says why).
      if (post && polls.current > 0)
        setAction((a) =>
          a.message === PUBLISHING_NOW
            ? { ...a, message: `Publishing finished: ${statusLabel(post.status).toLowerCase()}.` }
            : a,
        );
      polls.current = 0;
      return;
    }
    const wait = polls.current < FAST_POLLS ? FAST_POLL_MS : PUBLISHING_POLL_MS;
    polls.current += 1;
    const timer = window.setTimeout(() => setReload((n) => n + 1), wait);
    return () => window.clearTimeout(timer);
  }, [post]);

  const published = post?.platforms.some((r) => r.status === "published") ?? false;
  async function loadMetrics() {
    setMetricsError(null);
    const { data, error: failed } = await api.GET("/api/posts/{post}/metrics", { params: { path: { post: id } } });
    if (data) {
      setMetrics(data.platforms);
      setMetricsAt(Date.now());
    } else setMetricsError(errorMessage(failed, "The metrics could not be loaded."));
  }
  useEffect(() => {
    if (published && metrics === null) void loadMetrics();
  }, [published]);
  // Re-render when a refresh of the metrics becomes possible, so the button turns on by itself.
  const [, setTick] = useState(0);
  useEffect(() => {
    if (metricsAt === null) return;
    const timer = window.setTimeout(() => setTick((n) => n + 1), metricsAt + METRICS_TTL_MS - Date.now() + 100);
    return () => window.clearTimeout(timer);
  }, [metricsAt]);

  async function update(body: Schema<"UpdatePostRequest">, done: string) {
    setAction({ busy: true, message: null, error: null });
    const { data, error: failed } = await api.PUT("/api/posts/{post}", { params: { path: { post: id } }, body });
    if (data) {
      setPost(data);
      setAction({ busy: false, message: done, error: null });
      return true;
    }
    const fields = fieldErrors(failed);
    const first = Object.values(fields)[0]?.[0];
    setAction({ busy: false, message: null, error: first ?? errorMessage(failed, "The post could not be changed.") });
    return false;
  }

  /**
   * The time form: "Schedule" on a draft (or a failed post) schedules it at that time (PUT status=scheduled and
   * scheduled_at); "Reschedule" on a scheduled post moves it. A time gone by is refused here in plain words, and the
   * notice says "Scheduled for …" only when the API answered `scheduled`.
   */
  async function reschedule(e: Event) {
    e.preventDefault();
    setWhenError(null);
    const at = inputToApiTime(when, timeZone);
    if (at === null) {
      setWhenError("Enter a date and a time.");
      return;
    }
    if (Date.parse(at) <= Date.now()) {
      setWhenError(`${formatApiTime(at, timeZone)} has already passed. Pick a time in the future.`);
      return;
    }
    setAction({ busy: true, message: null, error: null });
    const body: Schema<"UpdatePostRequest"> =
      post?.status === "scheduled" ? { scheduled_at: at } : { status: "scheduled", scheduled_at: at };
    const { data, error: failed } = await api.PUT("/api/posts/{post}", { params: { path: { post: id } }, body });
    if (data) {
      setPost(data);
      setWhen(apiTimeToInput(data.scheduled_at, timeZone) ?? "");
      setAction({
        busy: false,
        message:
          data.status === "scheduled"
            ? `Scheduled for ${formatApiTime(data.scheduled_at, timeZone)}.`
            : `The time was saved, but the post is ${statusLabel(data.status).toLowerCase()}: it is not scheduled.`,
        error: null,
      });
    } else {
      setAction({ busy: false, message: null, error: null });
      const fields = fieldErrors(failed);
      const first = fields.scheduled_at?.[0] ?? Object.values(fields)[0]?.[0];
      setWhenError(first ?? errorMessage(failed, "The post could not be scheduled."));
    }
  }

  if (error)
    return (
      <section>
        <h1>Post</h1>
        <ErrorState
          title={error.status === 404 ? "This post is not here" : "The post could not be loaded"}
          message={
            error.status === 404
              ? "It may have been deleted, or it belongs to another workspace. Pick one from the list of posts."
              : error.message
          }
          onRetry={error.status === 404 ? undefined : () => setReload((n) => n + 1)}
        >
          <p>
            <Link to="/posts">All posts</Link>
          </p>
        </ErrorState>
      </section>
    );
  if (!post) return <Loading label="Loading the post…" />;

  const rows = post.platforms;
  const failedRows = rows.filter((r) => r.enabled && r.status === "failed").length;
  const canChange = editable && EDITABLE.has(post.status);
  const nextMetrics = metricsAt === null ? null : metricsAt + METRICS_TTL_MS;

  return (
    <section class="post-detail">
      <p class="small">
        <Link to="/posts">← All posts</Link>
      </p>
      <h1>Post</h1>
      <div class="post-summary">
        <p>
          <StatusBadge status={post.status} />{" "}
          {post.status === "published" || post.status === "partially_published"
            ? `Published ${formatApiTime(post.published_at, timeZone)}`
            : post.status === "draft"
              ? post.scheduled_at
                ? `Not scheduled yet; planned for ${formatApiTime(post.scheduled_at, timeZone)}`
                : "Not scheduled yet; no date chosen"
              : `Scheduled for ${formatApiTime(post.scheduled_at, timeZone)}`}{" "}
          <span class="muted small">({timeZone})</span>
        </p>
        {post.status === "scheduled" && post.queue_id && <QueueNote queueId={post.queue_id} />}
        {post.repeat && (
          <p class="repeat-note">
            <span aria-hidden="true">↻ </span>
            {describeRepeat(post.repeat, (utc) => formatApiTime(utc, timeZone))}. Each time it goes out, the next one is
            scheduled as a post of its own.
          </p>
        )}
        {post.repeat_of && (
          <p class="repeat-note">
            <Link to={`/posts/${post.repeat_of}`}>A repeat of an earlier post</Link>
          </p>
        )}
        {post.labels.length > 0 && (
          <p>
            {post.labels.map((l) => (
              <LabelChip key={l.id} name={l.name} color={l.color} />
            ))}
          </p>
        )}
        <blockquote class="post-content">{post.content || <span class="muted">(no text)</span>}</blockquote>
        {post.media.length > 0 && (
          <ul class="media-strip">
            {post.media.map((m) => (
              <li key={m.id}>
                {m.type === "image" ? (
                  <img src={m.url} alt={m.alt ?? ""} width={96} height={96} loading="lazy" />
                ) : (
                  <span class="media-video">Video: {m.original_filename}</span>
                )}
              </li>
            ))}
          </ul>
        )}
      </div>

      {canChange && (
        <div class="post-actions">
          <form class="reschedule" onSubmit={reschedule} noValidate>
            <div class="field">
              <label for="post-when">Scheduled time ({timeZone})</label>
              <input
                id="post-when"
                type="datetime-local"
                value={when}
                aria-invalid={whenError ? "true" : undefined}
                aria-describedby={whenError ? "post-when-error" : undefined}
                onInput={(e) => setWhen(e.currentTarget.value)}
              />
              {whenError && (
                <p id="post-when-error" class="field-error" role="alert">
                  {whenError}
                </p>
              )}
            </div>
            <button type="submit" class="button" disabled={action.busy}>
              {post.status === "scheduled" ? "Reschedule" : "Schedule"}
            </button>
          </form>
          <div class="toolbar">
            <Link to={`/compose/${post.id}`} class="button">
              Edit
            </Link>
            {failedRows > 0 ? (
              <button
                type="button"
                class="button button-primary"
                disabled={action.busy}
                onClick={() =>
                  void update({ status: "publishing" }, `Publishing again to ${failedRows} failed network(s).`)
                }
              >
                Retry the failed networks ({failedRows})
              </button>
            ) : (
              (post.status === "draft" || post.status === "scheduled") && (
                <button
                  type="button"
                  class="button button-primary"
                  disabled={action.busy}
                  onClick={() =>
                    // The post's time becomes now: the calendar and the list find it where it went out.
                    void update({ status: "publishing", scheduled_at: toApiTime(Date.now()) }, PUBLISHING_NOW)
                  }
                >
                  Publish now
                </button>
              )
            )}
            {post.status === "scheduled" && (
              <button
                type="button"
                class="button"
                disabled={action.busy}
                onClick={() => void update({ status: "draft" }, "Unscheduled: the post is a draft again.")}
              >
                Unschedule
              </button>
            )}
          </div>
          {action.message && (
            <p class="notice" role="status">
              {action.message}
            </p>
          )}
          {action.error && (
            <p class="field-error" role="alert">
              {action.error}
            </p>
          )}
        </div>
      )}

      {editable && (
        <div class="toolbar">
          <DuplicateButton postId={id} onError={(error) => setAction({ busy: false, message: null, error })} />
          <DeletePostControl
            postId={id}
            onDeleted={() => navigate("/posts?deleted=1")}
            onError={(error) => setAction({ busy: false, message: null, error })}
          />
          {!canChange && action.error && (
            <p class="field-error" role="alert">
              {action.error}
            </p>
          )}
        </div>
      )}

      <h2>Networks</h2>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a box that scrolls sideways must be reachable by keyboard (axe scrollable-region-focusable) */}
      <section class="table-scroll" tabIndex={0} aria-label="Networks of this post">
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Network</th>
              <th scope="col">Status</th>
              <th scope="col">On the network</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <td>
                  <NetworkIcon platform={row.platform} withName />
                  <br />
                  <span class="small muted">
                    {row.social_account.display_name}
                    {row.social_account.username ? ` @${row.social_account.username}` : ""}
                  </span>
                </td>
                <td>
                  <StatusBadge status={row.enabled ? row.status : "draft"} />
                </td>
                <td>
                  {webLink(row.platform_url) ? (
                    <a href={webLink(row.platform_url) ?? undefined} target="_blank" rel="noopener noreferrer">
                      View on {networkName(row.platform)}
                    </a>
                  ) : (
                    <span class="muted">—</span>
                  )}
                  {row.published_at && <span class="small muted"> {formatApiTime(row.published_at, timeZone)}</span>}
                </td>
                <td>
                  <RowState row={row} />
                  {row.thread && row.thread.length > 0 && (
                    <p class="small">
                      Thread: {row.thread.filter((t) => t.status === "published").length} of {row.thread.length}{" "}
                      published
                      {row.thread.find((t) => t.error_message)?.error_message
                        ? ` — ${row.thread.find((t) => t.error_message)?.error_message}`
                        : ""}
                    </p>
                  )}
                  {row.first_comment && (
                    <p class="small">
                      First comment: {row.first_comment.status}
                      {row.first_comment.error_message ? ` — ${row.first_comment.error_message}` : ""}
                    </p>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>

      <h2>Metrics</h2>
      {!published ? (
        <p class="muted">Metrics appear once the post is published on a network.</p>
      ) : metricsError ? (
        <ErrorState message={metricsError} onRetry={() => void loadMetrics()} />
      ) : metrics === null ? (
        <Loading label="Loading metrics…" />
      ) : (
        <>
          <MetricsChart entries={metrics} />
          <p class="small muted">
            {metricsAt !== null && `Read at ${formatTime(metricsAt, timeZone)}. `}
            The networks' numbers are cached for 5 minutes.{" "}
            <button
              type="button"
              class="button"
              disabled={nextMetrics !== null && Date.now() < nextMetrics}
              onClick={() => void loadMetrics()}
            >
              Refresh metrics
            </button>
            {nextMetrics !== null &&
              Date.now() < nextMetrics &&
              ` (possible after ${formatTime(nextMetrics, timeZone)})`}
          </p>
        </>
      )}
    </section>
  );
}
