import { useState } from "preact/hooks";
import type { Schema } from "../../../sdk/index";
import { api } from "../../api";
import { Field, FormErrors, inputValue, useFormErrors } from "../../components/form";
import { TimeZoneOptions } from "../../components/time-zone-options";
import { browserTimeZone } from "../../components/time-zone-pref";
import { gridSlots, slotGrid, WEEKDAY_NAMES } from "../../lib/queue-slots";

type Queue = Schema<"Queue">;

const SHOWN = ["name", "time_zone", "slots", "is_default"];
const STARTER_TIMES = ["09:00", "12:30", "17:00"];

/**
 * A queue's settings: name, time zone and its posting times as a weekday × time grid in that zone. Creates a queue
 * (`queue` absent) or replaces one (`PUT`, with "move queued posts onto the new times" as `reshuffle`).
 */
export function QueueSettingsForm({
  queue,
  canWrite,
  onSaved,
}: {
  queue?: Queue;
  canWrite: boolean;
  onSaved: (saved: Queue, note: string) => void;
}) {
  const [name, setName] = useState(queue?.name ?? "Main queue");
  const [zone, setZone] = useState(queue?.time_zone ?? browserTimeZone());
  const [grid, setGrid] = useState(() =>
    queue ? slotGrid(queue.slots) : STARTER_TIMES.map((time) => ({ time, days: new Set([1, 2, 3, 4, 5]) })),
  );
  const [newTime, setNewTime] = useState("");
  const [reshuffle, setReshuffle] = useState(false);
  const [saving, setSaving] = useState(false);
  const { errors, formRef, fail, clear } = useFormErrors();
  const prefix = queue ? `queue-${queue.id}-` : "new-queue-";

  const toggle = (time: string, day: number) =>
    setGrid((rows) =>
      rows.map((r) => {
        if (r.time !== time) return r;
        const days = new Set(r.days);
        if (days.has(day)) days.delete(day);
        else days.add(day);
        return { time, days };
      }),
    );

  function addTime() {
    if (!/^\d{2}:\d{2}$/.test(newTime) || grid.some((r) => r.time === newTime)) return;
    setGrid((rows) =>
      [...rows, { time: newTime, days: new Set([1, 2, 3, 4, 5, 6, 7]) }].sort((a, b) => a.time.localeCompare(b.time)),
    );
    setNewTime("");
  }

  async function submit(e: Event) {
    e.preventDefault();
    clear();
    setSaving(true);
    const body = {
      name,
      time_zone: zone,
      slots: gridSlots(grid),
      social_account_ids: queue?.social_account_ids ?? [],
      ...(queue ? { is_default: queue.is_default, paused: queue.paused } : {}),
    };
    const res = queue
      ? await api.PUT("/api/queues/{queue}", {
          params: { path: { queue: queue.id } },
          body: { ...body, ...(reshuffle ? { reshuffle: true } : {}) },
        })
      : await api.POST("/api/queues", { body });
    setSaving(false);
    if (!res.data) return fail(res.error, SHOWN, "The queue could not be saved.", prefix);
    const times = gridSlots(grid).length;
    onSaved(
      res.data,
      queue
        ? reshuffle
          ? `Saved. Queued posts moved onto the new times, in order.`
          : `Saved ${times} posting times. Queued posts keep their times.`
        : `Queue “${res.data.name}” created with ${times} posting times a week.`,
    );
    setReshuffle(false);
  }

  const e = errors.fields;
  return (
    <form ref={formRef} class="queue-settings" onSubmit={submit} aria-label={queue ? "Queue settings" : "New queue"}>
      <FormErrors messages={errors.general} />
      <div class="form-row">
        <Field path={`${prefix}name`} label="Queue name" error={e[`${prefix}name`]}>
          {(a) => (
            <input
              {...a}
              required
              maxLength={100}
              value={name}
              disabled={!canWrite}
              onInput={(ev) => setName(inputValue(ev))}
            />
          )}
        </Field>
        <Field path={`${prefix}time_zone`} label="Time zone" error={e[`${prefix}time_zone`]}>
          {(a) => (
            <select {...a} value={zone} disabled={!canWrite} onChange={(ev) => setZone(inputValue(ev))}>
              <TimeZoneOptions current={zone} />
            </select>
          )}
        </Field>
      </div>
      <fieldset class="slot-grid-fieldset">
        <legend>Posting times ({zone})</legend>
        <p class="field-hint">
          Each checked box is a slot: posts added to the queue take the next free one. Times are read in the queue's
          time zone, so 09:00 stays 09:00 when the clocks change.
        </p>
        {e[`${prefix}slots`] && <p class="field-error">{e[`${prefix}slots`]}</p>}
        <div class="table-scroll">
          <table class="slot-grid">
            <thead>
              <tr>
                <th scope="col">Time</th>
                {WEEKDAY_NAMES.map((d) => (
                  <th key={d} scope="col">
                    <abbr title={d}>{d.slice(0, 3)}</abbr>
                  </th>
                ))}
                <th scope="col">
                  <span class="visually-hidden">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {grid.map((row) => (
                <tr key={row.time}>
                  <th scope="row">{row.time}</th>
                  {WEEKDAY_NAMES.map((d, i) => (
                    <td key={d}>
                      <input
                        type="checkbox"
                        aria-label={`${d} ${row.time}`}
                        checked={row.days.has(i + 1)}
                        disabled={!canWrite}
                        onChange={() => toggle(row.time, i + 1)}
                      />
                    </td>
                  ))}
                  <td>
                    <button
                      type="button"
                      class="button button-quiet"
                      aria-label={`Remove ${row.time}`}
                      disabled={!canWrite}
                      onClick={() => setGrid((rows) => rows.filter((r) => r.time !== row.time))}
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {canWrite && (
          <div class="form-row">
            <Field path={`${prefix}new-time`} label="Add a posting time">
              {(a) => <input {...a} type="time" value={newTime} onInput={(ev) => setNewTime(inputValue(ev))} />}
            </Field>
            <button type="button" class="button" onClick={addTime} disabled={!newTime}>
              Add time
            </button>
          </div>
        )}
      </fieldset>
      {queue && canWrite && (
        <label class="choice">
          <input type="checkbox" checked={reshuffle} onChange={() => setReshuffle(!reshuffle)} />
          Move queued posts onto the new times, in order
        </label>
      )}
      {canWrite && (
        <div class="form-actions">
          <button type="submit" class="button button-primary" disabled={saving}>
            {saving ? "Saving…" : queue ? "Save posting times" : "Create queue"}
          </button>
        </div>
      )}
    </form>
  );
}
