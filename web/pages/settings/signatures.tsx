import { useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../../sdk/index";
import { api } from "../../api";
import { ConfirmButton, Field, FormErrors, inputValue, useFormErrors } from "../../components/form";
import { EmptyState, LoadedView } from "../../components/states";
import { useApi } from "../../components/use-api";
import type { SectionProps } from "../settings";

type Signature = Schema<"Signature">;

function SignatureForm({
  prefix,
  initial,
  submitLabel,
  onSave,
  onCancel,
}: {
  prefix: string;
  initial: { name: string; content: string };
  submitLabel: string;
  onSave: (body: { name: string; content: string }) => Promise<{ ok: boolean; error?: unknown }>;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(initial.name);
  const [content, setContent] = useState(initial.content);
  const [busy, setBusy] = useState(false);
  const { errors, formRef, fail, clear } = useFormErrors();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    clear();
    const result = await onSave({ name: name.trim(), content });
    setBusy(false);
    if (result.ok) {
      if (!onCancel) {
        setName("");
        setContent("");
      }
      return;
    }
    const err = result.error as { errors?: Record<string, string[]> } | undefined;
    fail(
      err?.errors
        ? { ...err, errors: Object.fromEntries(Object.entries(err.errors).map(([k, v]) => [`${prefix}${k}`, v])) }
        : result.error,
      [`${prefix}name`, `${prefix}content`],
      "The signature could not be saved. Try again.",
    );
  }
  return (
    <form ref={formRef} onSubmit={submit}>
      <Field path={`${prefix}name`} label="Signature name" error={errors.fields[`${prefix}name`]}>
        {(a) => <input {...a} required maxLength={255} value={name} onInput={(e) => setName(inputValue(e))} />}
      </Field>
      <Field
        path={`${prefix}content`}
        label="Signature text"
        hint="Added after a blank line at the end of a post when picked in the composer."
        error={errors.fields[`${prefix}content`]}
      >
        {(a) => <textarea {...a} required rows={3} value={content} onInput={(e) => setContent(inputValue(e))} />}
      </Field>
      <FormErrors messages={errors.general} />
      <div class="form-actions">
        <button type="submit" class="button button-primary" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
        {onCancel && (
          <button type="button" class="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** Signatures: texts the composer appends to a post. */
export default function SignaturesSection({ canWrite }: SectionProps) {
  const { value, reload } = useApi(() => api.GET("/api/signatures"), [], "The signatures could not be loaded.");
  const [editing, setEditing] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  async function remove(s: Signature) {
    const { error, response } = await api.DELETE("/api/signatures/{id}", { params: { path: { id: s.id } } });
    setNotice(
      response.ok ? `Signature “${s.name}” deleted.` : errorMessage(error, "The signature could not be deleted."),
    );
    await reload();
  }

  return (
    <section aria-labelledby="signatures-heading">
      <h2 id="signatures-heading">Signatures</h2>
      {canWrite && (
        <>
          <h3>New signature</h3>
          <SignatureForm
            prefix="new-"
            initial={{ name: "", content: "" }}
            submitLabel="Create signature"
            onSave={async (body) => {
              const { error, response } = await api.POST("/api/signatures", { body });
              if (response.ok) {
                setNotice(`Signature “${body.name}” created.`);
                await reload();
              }
              return { ok: response.ok, error };
            }}
          />
        </>
      )}
      <p role="status" class="small">
        {notice}
      </p>
      <LoadedView
        value={value}
        onRetry={reload}
        isEmpty={(data) => data.length === 0}
        empty={
          <EmptyState title="No signatures yet">
            <p>
              {canWrite
                ? "Create one above; the composer offers it under the text."
                : "An editor can add signatures here."}
            </p>
          </EmptyState>
        }
      >
        {(data) => (
          <ul class="item-list">
            {data.map((s) => (
              <li key={s.id} class="item">
                {editing === s.id ? (
                  <SignatureForm
                    prefix={`edit-${s.id}-`}
                    initial={{ name: s.name, content: s.content }}
                    submitLabel="Save signature"
                    onCancel={() => setEditing(null)}
                    onSave={async (body) => {
                      const { error, response } = await api.PUT("/api/signatures/{id}", {
                        params: { path: { id: s.id } },
                        body,
                      });
                      if (response.ok) {
                        setEditing(null);
                        setNotice(`Signature “${body.name}” saved.`);
                        await reload();
                      }
                      return { ok: response.ok, error };
                    }}
                  />
                ) : (
                  <>
                    <span class="item-main">
                      <strong>{s.name}</strong>
                      <span class="muted pre-line">{s.content}</span>
                    </span>
                    {canWrite && (
                      <span class="item-actions">
                        <button
                          type="button"
                          class="button"
                          aria-label={`Edit signature ${s.name}`}
                          onClick={() => setEditing(s.id)}
                        >
                          Edit
                        </button>
                        <ConfirmButton
                          label="Delete"
                          name={`signature ${s.name}`}
                          question={`Delete signature “${s.name}”?`}
                          confirmLabel="Yes, delete"
                          onConfirm={() => remove(s)}
                        />
                      </span>
                    )}
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
      </LoadedView>
    </section>
  );
}
