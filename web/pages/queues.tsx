import { useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../sdk/index";
import { api } from "../api";
import { EmptyState, LoadedView } from "../components/states";
import { useApi } from "../components/use-api";
import { navigate } from "../router";
import type { PageProps } from "../routes";
import { canEdit } from "../session";
import { useSession } from "../session-context";
import { QueueSettingsForm } from "./queues/settings-form";
import { UpcomingSlots } from "./queues/upcoming";

type Queue = Schema<"Queue">;

/**
 * Issue 37: the Queue page (`/queues?queue=<id>`). A queue's upcoming slots with their posts and the empty ones
 * (drag to reorder, share next), pause and resume, and its posting times as a weekday × time grid. A workspace with
 * no queue is offered one.
 */
export default function QueuesPage({ location }: PageProps) {
  const { membership } = useSession();
  const canWrite = canEdit(membership.role);
  const { value, reload } = useApi(() => api.GET("/api/queues"), [], "The queues could not be loaded.");
  const [note, setNote] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);

  return (
    <section class="queues-page">
      <h1>Queues</h1>
      <p class="muted">
        Set your posting times once; then “Add to queue” in the composer gives each post the next free slot.
      </p>
      <div class="toast-region" role="status">
        {note && <p class="notice">{note}</p>}
      </div>
      <LoadedView
        value={value}
        onRetry={() => void reload()}
        isEmpty={(list) => list.length === 0}
        empty={
          <>
            <EmptyState title="No queue yet">
              <p>{canWrite ? "Create one: pick the days and times you post at." : "An editor can create a queue."}</p>
            </EmptyState>
            {canWrite && (
              <QueueSettingsForm
                canWrite
                onSaved={(q, message) => {
                  setNote(message);
                  void reload();
                  navigate(`/queues?queue=${q.id}`, { replace: true });
                }}
              />
            )}
          </>
        }
      >
        {(queues) => {
          const wanted = location.query.get("queue");
          const queue = queues.find((q) => q.id === wanted) ?? queues.find((q) => q.is_default) ?? queues[0]!;
          return (
            <>
              <div class="toolbar">
                {queues.length > 1 && (
                  <div class="field">
                    <label for="queue-picker">Queue</label>
                    <select
                      id="queue-picker"
                      value={queue.id}
                      onChange={(e) => navigate(`/queues?queue=${(e.currentTarget as HTMLSelectElement).value}`)}
                    >
                      {queues.map((q) => (
                        <option key={q.id} value={q.id}>
                          {q.name}
                          {q.is_default ? " (default)" : ""}
                        </option>
                      ))}
                    </select>
                  </div>
                )}
                {canWrite && queues.length < 20 && (
                  <button type="button" class="button" onClick={() => setCreating(!creating)} aria-expanded={creating}>
                    New queue
                  </button>
                )}
              </div>
              {creating && (
                <section aria-labelledby="new-queue-title">
                  <h2 id="new-queue-title">New queue</h2>
                  <QueueSettingsForm
                    canWrite
                    onSaved={(q, message) => {
                      setCreating(false);
                      setNote(message);
                      void reload();
                      navigate(`/queues?queue=${q.id}`);
                    }}
                  />
                </section>
              )}
              <QueueView
                key={queue.id}
                queue={queue}
                canWrite={canWrite}
                onNote={setNote}
                onChanged={() => void reload()}
              />
            </>
          );
        }}
      </LoadedView>
    </section>
  );
}

function QueueView({
  queue,
  canWrite,
  onNote,
  onChanged,
}: {
  queue: Queue;
  canWrite: boolean;
  onNote: (message: string) => void;
  onChanged: () => void;
}) {
  const [busy, setBusy] = useState(false);

  async function setPaused(paused: boolean) {
    setBusy(true);
    const { data, error } = await api.PUT("/api/queues/{queue}", {
      params: { path: { queue: queue.id } },
      body: {
        name: queue.name,
        time_zone: queue.time_zone,
        slots: queue.slots,
        social_account_ids: queue.social_account_ids,
        is_default: queue.is_default,
        paused,
      },
    });
    setBusy(false);
    if (!data) return onNote(errorMessage(error, "The queue could not be changed."));
    onNote(
      data.paused
        ? `“${data.name}” is paused: its posts stay scheduled but nothing goes out until you resume it.`
        : `“${data.name}” is running again; posts whose time passed while it was paused moved to the next free slots.`,
    );
    onChanged();
  }

  return (
    <>
      <section aria-labelledby="upcoming-title">
        <div class="section-head">
          <h2 id="upcoming-title">
            {queue.name}
            {queue.is_default && <span class="role-badge">default</span>}
            {queue.paused && <span class="status status-failed">Paused</span>}
          </h2>
          {canWrite && (
            <button type="button" class="button" disabled={busy} onClick={() => void setPaused(!queue.paused)}>
              {queue.paused ? "Resume queue" : "Pause queue"}
            </button>
          )}
        </div>
        <p class="muted small">
          Times in {queue.time_zone}.{canWrite ? " Drag a post onto another to swap them." : ""}
        </p>
        <UpcomingSlots queue={queue} canWrite={canWrite} onNote={onNote} />
      </section>
      <section aria-labelledby="times-title">
        <h2 id="times-title">Posting times</h2>
        <QueueSettingsForm
          key={queue.updated_at}
          queue={queue}
          canWrite={canWrite}
          onSaved={(_, message) => {
            onNote(message);
            onChanged();
          }}
        />
      </section>
    </>
  );
}
