import { useEffect, useState } from "preact/hooks";
import type { Schema } from "../../sdk/index";
import { api } from "../api";
import { Link } from "../router";

type Queue = Schema<"Queue">;

/**
 * Issue 37: on a queued post's page, the queue it holds a slot in — and, when that queue is paused, that the post
 * waits for it ("the post says why"): the scheduler skips a paused queue's posts.
 */
export function QueueNote({ queueId }: { queueId: string }) {
  const [queue, setQueue] = useState<Queue | null>(null);
  useEffect(() => {
    let live = true;
    void api
      .GET("/api/queues/{queue}", { params: { path: { queue: queueId } } })
      .then(({ data }) => live && setQueue(data ?? null));
    return () => {
      live = false;
    };
  }, [queueId]);
  if (!queue) return null;
  const link = <Link to={`/queues?queue=${queue.id}`}>{`“${queue.name}”`}</Link>;
  return queue.paused ? (
    <p class="notice">
      Waiting: the queue {link} is paused, so this post does not go out until the queue is resumed (then it moves to the
      queue's next free slot if its time has passed).
    </p>
  ) : (
    <p class="muted small">In the queue {link}.</p>
  );
}
