import { useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../../sdk/index";
import { WEBHOOK_EVENT_TYPES } from "../../../src/services/webhooks/event-types";
import { api } from "../../api";
import { ConfirmButton, Field, FormErrors, inputValue, SecretOnce, useFormErrors } from "../../components/form";
import { EmptyState, LoadedView } from "../../components/states";
import { preferredTimeZone } from "../../components/time-zone-pref";
import { useApi } from "../../components/use-api";
import { formatApiTime } from "../../lib/time";
import type { SectionProps } from "../settings";

type Endpoint = Schema<"WebhookEndpoint">;
type EventType = Schema<"CreateWebhookRequest">["events"][number];

function EventPicker({
  idPrefix,
  selected,
  onChange,
  error,
}: {
  idPrefix: string;
  selected: readonly string[];
  onChange: (events: string[]) => void;
  error?: string | undefined;
}) {
  return (
    <fieldset class="field events" aria-describedby={error ? `${idPrefix}events-error` : undefined}>
      <legend>Events</legend>
      <div class="choices-grid">
        {WEBHOOK_EVENT_TYPES.map((ev, i) => (
          <label key={ev} class="choice">
            <input
              type="checkbox"
              id={i === 0 ? `f-${idPrefix}events` : undefined}
              checked={selected.includes(ev)}
              onChange={(e) =>
                onChange(
                  (e.currentTarget as HTMLInputElement).checked ? [...selected, ev] : selected.filter((s) => s !== ev),
                )
              }
            />
            <code>{ev}</code>
          </label>
        ))}
      </div>
      {error && (
        <p id={`${idPrefix}events-error`} class="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}

function Deliveries({ endpoint, canWrite }: { endpoint: Endpoint; canWrite: boolean }) {
  const zone = preferredTimeZone();
  const [page, setPage] = useState(1);
  const [notice, setNotice] = useState<string | null>(null);
  const { value, reload } = useApi(
    () => api.GET("/api/webhooks/{id}/deliveries", { params: { path: { id: endpoint.id }, query: { page } } }),
    [endpoint.id, page],
    "The deliveries could not be loaded.",
  );
  async function retry(id: string) {
    const { error, response } = await api.POST("/api/webhooks/{id}/deliveries/{delivery}/retry", {
      params: { path: { id: endpoint.id, delivery: id } },
    });
    setNotice(response.ok ? "Sent again: it appears below when it is delivered." : errorMessage(error, "Not sent."));
    await reload();
  }
  return (
    <div class="deliveries">
      <h4>Deliveries</h4>
      <div class="toolbar">
        <button type="button" class="button" onClick={reload}>
          Refresh deliveries
        </button>
        <span role="status" class="small">
          {notice}
        </span>
      </div>
      <LoadedView
        value={value}
        onRetry={reload}
        isEmpty={(data) => data.data.length === 0}
        empty={
          <EmptyState title="Nothing delivered yet">
            <p>Events appear here as they are sent. “Send test event” sends one now.</p>
          </EmptyState>
        }
      >
        {(data) => (
          <>
            <div class="table-wrap">
              <table class="table">
                <caption class="visually-hidden">Deliveries to {endpoint.url}</caption>
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Answer</th>
                    <th scope="col">Last attempt</th>
                    {canWrite && (
                      <th scope="col">
                        <span class="visually-hidden">Actions</span>
                      </th>
                    )}
                  </tr>
                </thead>
                <tbody>
                  {data.data.map((d) => (
                    <tr key={d.id}>
                      <th scope="row">
                        <code>{d.event_type}</code>
                      </th>
                      <td>
                        <span
                          class={`status status-${d.status === "succeeded" ? "published" : d.status === "failed" ? "failed" : "draft"}`}
                        >
                          {d.status}
                        </span>
                        {d.next_attempt_at && (
                          <span class="small muted"> next try {formatApiTime(d.next_attempt_at, zone)}</span>
                        )}
                      </td>
                      <td>{d.attempts}</td>
                      <td>
                        {d.response_status ?? "—"}
                        {d.error && <span class="small muted"> {d.error}</span>}
                      </td>
                      <td>{d.last_attempt_at ? formatApiTime(d.last_attempt_at, zone) : "—"}</td>
                      {canWrite && (
                        <td>
                          {(d.status === "succeeded" || d.status === "failed") && (
                            <button type="button" class="button" onClick={() => retry(d.id)}>
                              Send again
                            </button>
                          )}
                        </td>
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {data.meta.last_page > 1 && (
              <nav class="pager" aria-label="Deliveries pages">
                <button type="button" class="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                  Newer
                </button>
                <span>
                  Page {data.meta.current_page} of {data.meta.last_page}
                </span>
                <button
                  type="button"
                  class="button"
                  disabled={page >= data.meta.last_page}
                  onClick={() => setPage(page + 1)}
                >
                  Older
                </button>
              </nav>
            )}
          </>
        )}
      </LoadedView>
    </div>
  );
}

function EndpointItem({
  endpoint,
  canWrite,
  onChanged,
  onSecret,
}: {
  endpoint: Endpoint;
  canWrite: boolean;
  onChanged: (notice: string) => Promise<void>;
  onSecret: (title: string, secret: string) => void;
}) {
  const zone = preferredTimeZone();
  const [open, setOpen] = useState(false);
  const [editing, setEditing] = useState(false);
  const [events, setEvents] = useState<string[]>(endpoint.events);
  const { errors, formRef, fail, clear } = useFormErrors();
  const [busy, setBusy] = useState<string | null>(null);
  const name = endpoint.description || endpoint.url;

  async function act(what: string, run: () => Promise<{ response: Response; error?: unknown }>, done: string) {
    setBusy(what);
    const { response, error } = await run();
    setBusy(null);
    await onChanged(response.ok ? done : errorMessage(error, "That did not work. Try again."));
  }

  async function saveEvents(e: Event) {
    e.preventDefault();
    clear();
    const { error, response } = await api.PUT("/api/webhooks/{id}", {
      params: { path: { id: endpoint.id } },
      body: { events: events as EventType[] },
    });
    if (!response.ok) return fail(error, ["events"], "The events could not be saved.");
    setEditing(false);
    await onChanged(`Events of ${name} saved.`);
  }

  return (
    <li class="item item-block">
      <div class="item-head">
        <span class="item-main">
          <strong class="break">{endpoint.url}</strong>
          {endpoint.description && <span class="muted">{endpoint.description}</span>}
          <span>
            <span class={`status ${endpoint.enabled ? "status-published" : "status-failed"}`}>
              {endpoint.enabled ? "enabled" : "disabled"}
            </span>
            {endpoint.disabled_reason && <span class="small"> {endpoint.disabled_reason}</span>}
            {endpoint.failing_since && (
              <span class="small warn-text"> failing since {formatApiTime(endpoint.failing_since, zone)}</span>
            )}
          </span>
          <span class="small muted">{endpoint.events.join(", ")}</span>
          {endpoint.previous_secret_expires_at && (
            <span class="small muted">
              The previous secret also signs until {formatApiTime(endpoint.previous_secret_expires_at, zone)}.
            </span>
          )}
        </span>
      </div>
      <div class="item-actions wrap">
        <button type="button" class="button" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? "Hide deliveries" : "Show deliveries"}
          <span class="visually-hidden"> of {name}</span>
        </button>
        {canWrite && (
          <>
            <button
              type="button"
              class="button"
              disabled={busy !== null}
              onClick={() =>
                act(
                  "test",
                  () => api.POST("/api/webhooks/{id}/test", { params: { path: { id: endpoint.id } } }),
                  `A test event is on its way to ${name}; see its deliveries.`,
                )
              }
            >
              {busy === "test" ? "Sending…" : "Send test event"}
            </button>
            <button type="button" class="button" aria-expanded={editing} onClick={() => setEditing(!editing)}>
              Edit events<span class="visually-hidden"> of {name}</span>
            </button>
            <button
              type="button"
              class="button"
              disabled={busy !== null}
              onClick={() =>
                act(
                  "toggle",
                  () =>
                    api.PUT("/api/webhooks/{id}", {
                      params: { path: { id: endpoint.id } },
                      body: { enabled: !endpoint.enabled },
                    }),
                  endpoint.enabled ? `${name} paused.` : `${name} enabled.`,
                )
              }
            >
              {endpoint.enabled ? "Pause" : "Enable"}
              <span class="visually-hidden"> {name}</span>
            </button>
            <ConfirmButton
              label="Rotate secret"
              name={`of ${name}`}
              question="Rotate the signing secret? The old one keeps signing beside it for 24 hours."
              confirmLabel="Yes, rotate"
              onConfirm={async () => {
                const { data, error } = await api.POST("/api/webhooks/{id}/rotate-secret", {
                  params: { path: { id: endpoint.id } },
                });
                if (data) {
                  onSecret(`New signing secret of ${name}`, data.secret);
                  await onChanged("Secret rotated.");
                } else await onChanged(errorMessage(error, "The secret could not be rotated."));
              }}
            />
            <ConfirmButton
              label="Delete"
              name={`endpoint ${name}`}
              question={`Delete ${name} and its delivery log?`}
              confirmLabel="Yes, delete"
              onConfirm={() =>
                act(
                  "delete",
                  () => api.DELETE("/api/webhooks/{id}", { params: { path: { id: endpoint.id } } }),
                  `${name} deleted.`,
                )
              }
            />
          </>
        )}
      </div>
      {editing && (
        <form ref={formRef} onSubmit={saveEvents}>
          <EventPicker
            idPrefix={`edit-${endpoint.id}-`}
            selected={events}
            onChange={setEvents}
            error={errors.fields.events}
          />
          <FormErrors messages={errors.general} />
          <button type="submit" class="button button-primary">
            Save events
          </button>
        </form>
      )}
      {open && <Deliveries endpoint={endpoint} canWrite={canWrite} />}
    </li>
  );
}

/** Webhooks: endpoints, their events, the delivery log, test events, secret rotation (the secret shown once). */
export default function WebhooksSection({ canWrite }: SectionProps) {
  const { value, reload } = useApi(() => api.GET("/api/webhooks"), [], "The webhooks could not be loaded.");
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<string[]>(["post.published", "post.failed"]);
  const [busy, setBusy] = useState(false);
  const [secret, setSecret] = useState<{ title: string; value: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { errors, formRef, fail, clear } = useFormErrors();

  async function create(e: Event) {
    e.preventDefault();
    clear();
    setBusy(true);
    const { data, error } = await api.POST("/api/webhooks", {
      body: { url: url.trim(), events: events as EventType[], ...(description ? { description } : {}) },
    });
    setBusy(false);
    if (!data) return fail(error, ["url", "events", "description"], "The endpoint could not be created.");
    setSecret({ title: `Signing secret of ${data.url}`, value: data.secret });
    setUrl("");
    setDescription("");
    await reload();
  }

  const changed = async (message: string) => {
    setNotice(message);
    await reload();
  };

  return (
    <section aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p class="muted">
        Each endpoint receives the events it picks, signed with its secret (Standard Webhooks; see docs/webhooks.md).
      </p>
      {secret && <SecretOnce title={secret.title} value={secret.value} onDone={() => setSecret(null)} />}
      {canWrite && !secret && (
        <form ref={formRef} onSubmit={create}>
          <h3>New endpoint</h3>
          <Field path="url" label="Endpoint URL" hint="A public https address." error={errors.fields.url}>
            {(a) => (
              <input
                {...a}
                type="url"
                required
                placeholder="https://example.com/webhooks/social"
                value={url}
                onInput={(e) => setUrl(inputValue(e))}
              />
            )}
          </Field>
          <Field path="description" label="Description" error={errors.fields.description}>
            {(a) => <input {...a} maxLength={255} value={description} onInput={(e) => setDescription(inputValue(e))} />}
          </Field>
          <EventPicker idPrefix="" selected={events} onChange={setEvents} error={errors.fields.events} />
          <FormErrors messages={errors.general} />
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? "Creating…" : "Create endpoint"}
          </button>
        </form>
      )}
      <p role="status" class="small">
        {notice}
      </p>
      <h3>Endpoints</h3>
      <LoadedView
        value={value}
        onRetry={reload}
        isEmpty={(data) => data.length === 0}
        empty={
          <EmptyState title="No webhook endpoints">
            <p>Add one above to be told when posts publish or fail and when accounts need attention.</p>
          </EmptyState>
        }
      >
        {(data) => (
          <ul class="item-list">
            {data.map((ep) => (
              <EndpointItem
                key={ep.id}
                endpoint={ep}
                canWrite={canWrite}
                onChanged={changed}
                onSecret={(title, value) => setSecret({ title, value })}
              />
            ))}
          </ul>
        )}
      </LoadedView>
    </section>
  );
}
