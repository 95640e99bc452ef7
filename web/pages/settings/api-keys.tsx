import { useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../../sdk/index";
import { api } from "../../api";
import { ConfirmButton, Field, FormErrors, inputValue, SecretOnce, useFormErrors } from "../../components/form";
import { EmptyState, LoadedView } from "../../components/states";
import { preferredTimeZone } from "../../components/time-zone-pref";
import { useApi } from "../../components/use-api";
import { formatApiTime, inputToApiTime } from "../../lib/time";
import type { SectionProps } from "../settings";

type ApiKey = Schema<"ApiKey">;
type Scope = ApiKey["scopes"][number];

const SCOPES: { value: Scope; label: string; hint: string }[] = [
  { value: "read", label: "Read", hint: "reads posts, accounts, media and metrics" },
  { value: "publish", label: "Publish", hint: "also writes posts, media and uploads" },
  { value: "full", label: "Full", hint: "everything, including keys, webhooks and accounts" },
];

/** API keys: create (the token shown once), list, revoke. */
export default function ApiKeysSection({ canWrite }: SectionProps) {
  const zone = preferredTimeZone();
  const { value, reload } = useApi(() => api.GET("/api/api-keys"), [], "The API keys could not be loaded.");
  const [name, setName] = useState("");
  const [scope, setScope] = useState<Scope>("publish");
  const [expires, setExpires] = useState("");
  const [busy, setBusy] = useState(false);
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { errors, formRef, fail, clear } = useFormErrors();

  async function create(e: Event) {
    e.preventDefault();
    clear();
    const expiresAt = expires ? inputToApiTime(expires, zone) : null;
    if (expires && !expiresAt) {
      fail({ errors: { expires_at: ["Enter a date and time, or leave it empty for no expiry."] } }, ["expires_at"]);
      return;
    }
    setBusy(true);
    const { data, error } = await api.POST("/api/api-keys", {
      body: { name: name.trim(), scopes: [scope], ...(expiresAt ? { expires_at: expiresAt } : {}) },
    });
    setBusy(false);
    if (!data) return fail(error, ["name", "scopes", "expires_at"], "The key could not be created. Try again.");
    setCreated({ name: data.token.name, token: data.plain_token });
    setName("");
    setExpires("");
    await reload();
  }

  async function revoke(key: ApiKey) {
    const { error, response } = await api.DELETE("/api/api-keys/{id}", { params: { path: { id: key.id } } });
    setNotice(
      response.ok
        ? `Key “${key.name}” revoked: it and the keys it created stop working now.`
        : errorMessage(error, "The key could not be revoked."),
    );
    await reload();
  }

  return (
    <section aria-labelledby="api-keys-heading">
      <h2 id="api-keys-heading">API keys</h2>
      <p class="muted">
        Keys let scripts, servers and agents use the API (<a href="/api/docs">reference</a>). Times are in {zone}.
      </p>
      {created ? (
        <SecretOnce
          title={`New API key “${created.name}”`}
          value={created.token}
          onDone={() => {
            setCreated(null);
            setNotice(`Key “${created.name}” created.`);
          }}
        />
      ) : (
        canWrite && (
          <form ref={formRef} onSubmit={create}>
            <h3>New API key</h3>
            <Field path="name" label="Key name" hint="Who or what uses it, e.g. “Blog CMS”." error={errors.fields.name}>
              {(a) => <input {...a} required maxLength={255} value={name} onInput={(e) => setName(inputValue(e))} />}
            </Field>
            <fieldset class="field" aria-describedby={errors.fields.scopes ? "f-scopes-error" : undefined}>
              <legend>Scope</legend>
              {SCOPES.map((s, i) => (
                <label key={s.value} class="choice">
                  <input
                    type="radio"
                    name="scope"
                    value={s.value}
                    id={i === 0 ? "f-scopes" : undefined}
                    checked={scope === s.value}
                    onChange={() => setScope(s.value)}
                  />
                  <span>
                    {s.label} <span class="muted small">— {s.hint}</span>
                  </span>
                </label>
              ))}
              {errors.fields.scopes && (
                <p id="f-scopes-error" class="field-error">
                  {errors.fields.scopes}
                </p>
              )}
            </fieldset>
            <Field
              path="expires_at"
              label="Expires"
              hint={`Optional, in ${zone}. Empty: the key does not expire.`}
              error={errors.fields.expires_at}
            >
              {(a) => <input {...a} type="datetime-local" value={expires} onInput={(e) => setExpires(inputValue(e))} />}
            </Field>
            <FormErrors messages={errors.general} />
            <button type="submit" class="button button-primary" disabled={busy}>
              {busy ? "Creating…" : "Create API key"}
            </button>
          </form>
        )
      )}
      <p role="status" class="small">
        {notice}
      </p>
      <h3>Keys</h3>
      <LoadedView
        value={value}
        onRetry={reload}
        isEmpty={(data) => data.length === 0}
        empty={
          <EmptyState title="No API keys">
            <p>Create one above to use the API from a script or a server.</p>
          </EmptyState>
        }
      >
        {(data) => (
          <div class="table-wrap">
            <table class="table">
              <caption class="visually-hidden">API keys of this workspace</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  {canWrite && (
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {data.map((k) => (
                  <tr key={k.id}>
                    <th scope="row">{k.name}</th>
                    <td>{k.scopes.join(", ")}</td>
                    <td>{formatApiTime(k.created_at, zone)}</td>
                    <td>{k.last_used_at ? formatApiTime(k.last_used_at, zone) : "never"}</td>
                    <td>{k.expires_at ? formatApiTime(k.expires_at, zone) : "never"}</td>
                    {canWrite && (
                      <td>
                        <ConfirmButton
                          label="Revoke"
                          name={`key ${k.name}`}
                          question={`Revoke “${k.name}”? It stops working at once.`}
                          confirmLabel="Yes, revoke"
                          onConfirm={() => revoke(k)}
                        />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </LoadedView>
    </section>
  );
}
