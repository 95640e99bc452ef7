import { useState } from "preact/hooks";
import type { Schema } from "../../../sdk/index";
import { api } from "../../api";
import { Field, FormErrors, inputValue, useFormErrors } from "../../components/form";
import { TimeZoneOptions } from "../../components/time-zone-options";
import { browserTimeZone } from "../../components/time-zone-pref";
import { useApi } from "../../components/use-api";
import { gridSlots, slotGrid, WEEKDAY_NAMES } from "../../lib/queue-slots";

type Queue = Schema<"Queue">;

const SHOWN = ["name", "time_zone", "slots", "is_default", "evergreen_label_id", "evergreen_min_days"];
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
  // Issue 37, evergreen: a label whose published posts refill the queue's empty slots a day ahead.
  const labels = useApi(() => api.GET("/api/labels"), [], "The labels could not be loaded.").value;
  const [evergreenLabel, setEvergreenLabel] = useState(queue?.evergreen_label_id ?? "");
  const [evergreenDays, setEvergreenDays] = useState(String(queue?.evergreen_min_days ?? 30));
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
      evergreen_label_id: evergreenLabel === "" ? null : evergreenLabel,
      // Not a number: sent as typed, so the API's message names the field.
      evergreen_min_days: (Number.isFinite(Number(evergreenDays)) ? Number(evergreenDays) : evergreenDays) as number,
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
    // What the server stored: the label it kept and its gap.
    const saved = res.data;
    const label = labels.state === "ready" ? labels.data.find((l) => l.id === saved.evergreen_label_id) : undefined;
    const evergreen = label
      ? ` Empty slots a day ahead are refilled with posts labelled “${label.name}”, ${saved.evergreen_min_days} days apart at least.`
      : "";
    onSaved(
      saved,
      (queue
        ? reshuffle
          ? `Saved. Queued posts moved onto the new times, in order.`
          : `Saved ${times} posting times. Queued posts keep their times.`
        : `Queue “${saved.name}” created with ${times} posting times a week.`) + evergreen,
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
      <fieldset class="evergreen">
        <legend>Evergreen posts</legend>
        <p class="field-hint">
          A slot still empty a day ahead is filled with a copy of a published post with this label: the one shared
          longest ago, never the same twice in a row.
        </p>
        <div class="form-row">
          <Field
            path={`${prefix}evergreen_label_id`}
            label="Refill empty slots with"
            error={e[`${prefix}evergreen_label_id`]}
          >
            {(a) => (
              <select
                {...a}
                value={evergreenLabel}
                disabled={!canWrite || labels.state !== "ready"}
                onChange={(ev) => setEvergreenLabel((ev.currentTarget as HTMLSelectElement).value)}
              >
                <option value="">Nothing (leave them empty)</option>
                {labels.state === "ready" &&
                  labels.data.map((l) => (
                    <option key={l.id} value={l.id}>
                      Posts labelled “{l.name}”
                    </option>
                  ))}
              </select>
            )}
          </Field>
          {evergreenLabel !== "" && (
            <Field
              path={`${prefix}evergreen_min_days`}
              label="At least this many days between two shares of one post"
              error={e[`${prefix}evergreen_min_days`]}
            >
              {(a) => (
                <input
                  {...a}
                  type="number"
                  min={7}
                  max={365}
                  value={evergreenDays}
                  disabled={!canWrite}
                  onInput={(ev) => setEvergreenDays(inputValue(ev))}
                />
              )}
            </Field>
          )}
        </div>
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
            {saving ? "Saving…" : queue ? "Save queue settings" : "Create queue"}
          </button>
        </div>
      )}
    </form>
  );
}
