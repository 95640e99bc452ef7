import { useEffect, useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../../sdk/index";
import { api } from "../../api";
import { ErrorState, Loading } from "../../components/states";
import { excerpt } from "../../lib/format";
import { fetchAllPosts } from "../../lib/post-pages";
import { slotLong, swapOrder } from "../../lib/queue-slots";
import { parseApiTime, toApiTime } from "../../lib/time";
import { Link } from "../../router";

type Queue = Schema<"Queue">;
type Slot = Schema<"QueueSlotItem">;
type Post = Schema<"Post">;

/** Slots shown on the page: about three weeks of a queue with a slot a day. */
const SHOWN_SLOTS = 20;

interface Loaded {
  slots: Slot[];
  posts: Map<string, Post>;
}

/** The scheduled posts from the first slot shown to the last (a bare `Y-m-d H:i:s` is UTC to the API). */
async function postsBetween(from: string, to: string): Promise<Map<string, Post> | string> {
  const until = toApiTime((parseApiTime(to) ?? 0) + 1000);
  const result = await fetchAllPosts({ status: "scheduled", scheduled_from: from, scheduled_to: until });
  return result.ok ? new Map(result.posts.map((p) => [p.id, p])) : result.message;
}

/**
 * A queue's upcoming slots with the post (or reservation) in each and the empty ones. Posts are reordered by drag
 * and drop (drop one post on another: they trade slots) or with "Move up" / "Move down"; "Share next" puts a post
 * into the earliest slot, the others moving down one. Each result is said in `onNote` from what the API answered.
 */
export function UpcomingSlots({
  queue,
  canWrite,
  onNote,
}: {
  queue: Queue;
  canWrite: boolean;
  onNote: (message: string) => void;
}) {
  const [loaded, setLoaded] = useState<Loaded | { error: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [dragged, setDragged] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    void (async () => {
      const { data, error } = await api.GET("/api/queues/{queue}/slots", {
        params: { path: { queue: queue.id }, query: { count: SHOWN_SLOTS } },
      });
      if (!live) return;
      if (!data) return setLoaded({ error: errorMessage(error, "The queue's slots could not be loaded.") });
      const posts = data.length ? await postsBetween(data[0]!.at, data[data.length - 1]!.at) : new Map();
      if (!live) return;
      setLoaded(typeof posts === "string" ? { error: posts } : { slots: data, posts });
    })();
    return () => {
      live = false;
    };
  }, [queue.id, queue.updated_at, attempt]);

  if (!loaded) return <Loading label="Loading the queue…" />;
  if ("error" in loaded) return <ErrorState message={loaded.error} onRetry={() => setAttempt(attempt + 1)} />;
  const { slots, posts } = loaded;
  const queued = slots.filter((s): s is Slot & { post_id: string } => s.post_id !== null);
  const title = (id: string) => `“${excerpt(posts.get(id)?.content, 40)}”`;
  const slotOf = (id: string) => queued.find((s) => s.post_id === id);

  async function reorder(postIds: string[], note: (bySlot: Map<string, Slot>) => string) {
    setBusy(true);
    const { data, error } = await api.POST("/api/queues/{queue}/reorder", {
      params: { path: { queue: queue.id } },
      body: { post_ids: postIds },
    });
    setBusy(false);
    if (!data) return onNote(errorMessage(error, "The queue could not be reordered."));
    onNote(note(new Map(data.map((s) => [s.post_id!, s]))));
    setAttempt((n) => n + 1);
  }

  const swap = (a: string, b: string) => {
    const sa = slotOf(a);
    const sb = slotOf(b);
    if (!sa || !sb || a === b) return;
    void reorder(
      swapOrder(sa, sb),
      (bySlot) =>
        `Swapped: ${title(a)} now goes out ${slotLong(bySlot.get(a)!.local)}, ${title(b)} ${slotLong(bySlot.get(b)!.local)}.`,
    );
  };

  async function shareNext(id: string) {
    setBusy(true);
    const { data, error } = await api.PUT("/api/posts/{post}", {
      params: { path: { post: id } },
      body: { status: "scheduled", queue_id: queue.id, queue_position: "next" },
    });
    setBusy(false);
    if (!data) return onNote(errorMessage(error, "The post could not be moved to the front."));
    const first = slots.find((s) => s.at === data.scheduled_at);
    onNote(
      `${title(id)} goes out next${first ? `, ${slotLong(first.local)}` : ""}; the posts after it moved down one.`,
    );
    setAttempt((n) => n + 1);
  }

  if (slots.length === 0)
    return <p class="notice">This queue has no posting times yet: add some below, then add posts to it.</p>;
  return (
    <ol class="queue-slots" aria-label={`Upcoming slots of ${queue.name}`}>
      {slots.map((s, i) => {
        const post = s.post_id ? posts.get(s.post_id) : undefined;
        const prev = s.post_id ? [...queued].reverse().find((q) => q.at < s.at) : undefined;
        const next = s.post_id ? queued.find((q) => q.at > s.at) : undefined;
        return (
          <li
            key={s.at}
            class={`queue-slot${s.post_id ? " queue-slot-filled" : ""}${s.post_id && dragged === s.post_id ? " dragging" : ""}`}
            draggable={canWrite && !!s.post_id && !busy}
            onDragStart={(e) => {
              if (!s.post_id) return;
              setDragged(s.post_id);
              e.dataTransfer?.setData("text/plain", s.post_id);
            }}
            onDragEnd={() => setDragged(null)}
            onDragOver={(e) => {
              // Any post is a drop target (the drop reads which post was dragged).
              if (s.post_id) e.preventDefault();
            }}
            onDrop={(e) => {
              e.preventDefault();
              const from = e.dataTransfer?.getData("text/plain") || dragged;
              setDragged(null);
              if (from && s.post_id) swap(from, s.post_id);
            }}
          >
            <span class="slot-time">{slotLong(s.local)}</span>
            {s.post_id ? (
              <span class="slot-post">
                <Link to={`/posts/${s.post_id}`}>{post ? excerpt(post.content, 90) : "A queued post"}</Link>
                {canWrite && (
                  <span class="item-actions">
                    <button
                      type="button"
                      class="button button-quiet"
                      disabled={busy || !prev}
                      aria-label={`Move up ${title(s.post_id)}`}
                      onClick={() => prev && swap(s.post_id!, prev.post_id)}
                    >
                      Move up
                    </button>
                    <button
                      type="button"
                      class="button button-quiet"
                      disabled={busy || !next}
                      aria-label={`Move down ${title(s.post_id)}`}
                      onClick={() => next && swap(s.post_id!, next.post_id)}
                    >
                      Move down
                    </button>
                    {i > 0 && (
                      <button
                        type="button"
                        class="button button-quiet"
                        disabled={busy}
                        aria-label={`Share next ${title(s.post_id)}`}
                        onClick={() => void shareNext(s.post_id!)}
                      >
                        Share next
                      </button>
                    )}
                  </span>
                )}
              </span>
            ) : s.reservation_id ? (
              <span class="slot-post muted">Reserved: an agent is preparing a post for this slot.</span>
            ) : (
              <span class="slot-post muted">
                Empty slot
                {canWrite && (
                  <>
                    {" · "}
                    <Link to={`/compose?queue=${queue.id}`}>Write a post for the queue</Link>
                  </>
                )}
              </span>
            )}
          </li>
        );
      })}
    </ol>
  );
}
