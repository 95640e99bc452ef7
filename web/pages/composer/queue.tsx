import { useEffect, useState } from "preact/hooks";
import type { Schema } from "../../../sdk/index";
import { api } from "../../api";
import { fieldId } from "../../lib/field-errors";
import { firstFree, slotShort } from "../../lib/queue-slots";

type Queue = Schema<"Queue">;
type Slot = Schema<"QueueSlotItem">;

/**
 * Issue 37: the queue the composer's "Add to queue" uses (the one the page was opened for, else the default) and
 * the slot it would take now — the first of the queue's next 100 that nobody holds. The slot is what the button
 * names; the API picks the slot itself when the post is saved, so a slot taken meanwhile only moves it later.
 */
export function useQueueChoice(queues: readonly Queue[], wanted: string | null, wantedSlot: string | null = null) {
  const initial = queues.find((q) => q.id === wanted) ?? queues.find((q) => q.is_default) ?? queues[0];
  const [queueId, setQueueId] = useState(initial?.id ?? null);
  const [slot, setSlot] = useState<Slot | null | undefined>(undefined);
  // The calendar's free slot (`?slot=`): this exact slot while it is still free, until the post is added.
  const [pinned, setPinned] = useState<string | null>(wanted && initial?.id === wanted ? wantedSlot : null);
  const queue = queues.find((q) => q.id === queueId) ?? null;
  const refresh = () => {
    setPinned(null);
    setSlot(undefined);
  };
  useEffect(() => {
    if (!queueId || slot !== undefined) return;
    let live = true;
    void api
      .GET("/api/queues/{queue}/slots", { params: { path: { queue: queueId }, query: { count: 100 } } })
      .then(({ data }) => {
        if (!live) return;
        const exact = pinned ? firstFree((data ?? []).filter((s) => s.at === pinned)) : undefined;
        if (pinned && !exact) setPinned(null);
        setSlot(data ? (exact ?? firstFree(data) ?? null) : null);
      });
    return () => {
      live = false;
    };
  }, [queueId, slot, pinned]);
  return {
    queue,
    slot,
    /** The exact slot to ask for (`scheduled_at` with `queue_id`), when the page was opened for one. */
    exactAt: pinned && slot?.at === pinned ? pinned : null,
    choose(id: string) {
      setQueueId(id);
      setPinned(null);
      setSlot(undefined);
    },
    refresh,
  };
}

/** "Add to queue — Tue 09:00", with the queue to use when there are several. */
export function AddToQueue({
  queues,
  choice,
  disabled,
  saving,
  error,
  onAdd,
}: {
  queues: readonly Queue[];
  choice: ReturnType<typeof useQueueChoice>;
  disabled: boolean;
  saving: boolean;
  error: string | undefined;
  onAdd: () => void;
}) {
  const { queue, slot } = choice;
  if (!queue) return null;
  const paused = queue.paused ? " (paused)" : "";
  const label = saving
    ? "Adding…"
    : slot
      ? `Add to queue — ${slotShort(slot.local)}`
      : slot === null
        ? "Add to queue"
        : "Add to queue…";
  return (
    <span class="add-to-queue">
      {queues.length > 1 && (
        <select
          id={fieldId("queue_id")}
          aria-label="Queue"
          value={queue.id}
          disabled={disabled}
          onChange={(e) => choice.choose((e.currentTarget as HTMLSelectElement).value)}
        >
          {queues.map((q) => (
            <option key={q.id} value={q.id}>
              {q.name}
              {q.paused ? " (paused)" : ""}
            </option>
          ))}
        </select>
      )}
      <button
        type="button"
        class="button button-primary"
        id={queues.length > 1 ? undefined : fieldId("queue_id")}
        disabled={disabled || queue.slots.length === 0}
        title={queue.slots.length === 0 ? "This queue has no posting times yet." : `Queue “${queue.name}”${paused}`}
        onClick={onAdd}
      >
        {label}
      </button>
      {error && <span class="field-error">{error}</span>}
    </span>
  );
}
