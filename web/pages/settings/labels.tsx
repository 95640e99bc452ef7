import { useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../../sdk/index";
import { api } from "../../api";
import { ConfirmButton, Field, FormErrors, inputValue, useFormErrors } from "../../components/form";
import { EmptyState, LoadedView } from "../../components/states";
import { useApi } from "../../components/use-api";
import type { SectionProps } from "../settings";

type Label = Schema<"Label">;
const FIELDS = ["name", "color"] as const;

function LabelForm({
  initial,
  prefix,
  submitLabel,
  onSaved,
  onCancel,
}: {
  initial: { name: string; color: string };
  /** Keeps the ids of two forms on one page apart. */
  prefix: string;
  submitLabel: string;
  onSaved: (body: { name: string; color: string }) => Promise<{ error?: unknown; ok: boolean }>;
  onCancel?: () => void;
}) {
  const [name, setName] = useState(initial.name);
  const [color, setColor] = useState(initial.color);
  const [busy, setBusy] = useState(false);
  const { errors, formRef, fail, clear } = useFormErrors();
  const shown = FIELDS.map((f) => `${prefix}${f}`);
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    clear();
    const result = await onSaved({ name: name.trim(), color });
    setBusy(false);
    if (!result.ok) {
      const err = result.error as { errors?: Record<string, string[]> } | undefined;
      // The API names `name` and `color`; this form's fields carry a prefix.
      const prefixed = err?.errors
        ? { ...err, errors: Object.fromEntries(Object.entries(err.errors).map(([k, v]) => [`${prefix}${k}`, v])) }
        : result.error;
      fail(prefixed, shown, "The label could not be saved. Try again.");
    } else if (!onCancel) {
      setName("");
    }
  }
  return (
    <form ref={formRef} class="inline-form" onSubmit={submit}>
      <Field path={`${prefix}name`} label="Label name" error={errors.fields[`${prefix}name`]}>
        {(a) => <input {...a} required maxLength={255} value={name} onInput={(e) => setName(inputValue(e))} />}
      </Field>
      <Field path={`${prefix}color`} label="Colour" error={errors.fields[`${prefix}color`]}>
        {(a) => <input {...a} type="color" value={color} onInput={(e) => setColor(inputValue(e))} />}
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

/** Labels: list, create, rename or recolour, delete (it is detached from every post). */
export default function LabelsSection({ canWrite }: SectionProps) {
  const { value, reload } = useApi(() => api.GET("/api/labels"), [], "The labels could not be loaded.");
  const [editing, setEditing] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  async function remove(label: Label) {
    const { error, response } = await api.DELETE("/api/labels/{id}", { params: { path: { id: label.id } } });
    setNotice(response.ok ? `Label “${label.name}” deleted.` : errorMessage(error, "The label could not be deleted."));
    await reload();
  }

  return (
    <section aria-labelledby="labels-heading">
      <h2 id="labels-heading">Labels</h2>
      <p class="muted">Labels group posts; the calendar and the posts list filter by them.</p>
      {canWrite && (
        <>
          <h3>New label</h3>
          <LabelForm
            prefix="new-"
            initial={{ name: "", color: "#1d4ed8" }}
            submitLabel="Create label"
            onSaved={async (body) => {
              const { error, response } = await api.POST("/api/labels", { body });
              if (response.ok) {
                setNotice(`Label “${body.name}” created.`);
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
          <EmptyState title="No labels yet">
            <p>{canWrite ? "Create one above, then pick it in the composer." : "An editor can create labels here."}</p>
          </EmptyState>
        }
      >
        {(data) => (
          <ul class="item-list">
            {data.map((label) => (
              <li key={label.id} class="item">
                {editing === label.id ? (
                  <LabelForm
                    prefix={`edit-${label.id}-`}
                    initial={{ name: label.name, color: label.color }}
                    submitLabel="Save label"
                    onCancel={() => setEditing(null)}
                    onSaved={async (body) => {
                      const { error, response } = await api.PUT("/api/labels/{id}", {
                        params: { path: { id: label.id } },
                        body,
                      });
                      if (response.ok) {
                        setEditing(null);
                        setNotice(`Label “${body.name}” saved.`);
                        await reload();
                      }
                      return { ok: response.ok, error };
                    }}
                  />
                ) : (
                  <>
                    <span class="item-main">
                      <LabelChip label={label} />
                    </span>
                    {canWrite && (
                      <span class="item-actions">
                        <button
                          type="button"
                          class="button"
                          aria-label={`Edit label ${label.name}`}
                          onClick={() => setEditing(label.id)}
                        >
                          Edit
                        </button>
                        <ConfirmButton
                          label="Delete"
                          name={`label ${label.name}`}
                          question={`Delete label “${label.name}”? It is removed from every post.`}
                          confirmLabel="Yes, delete"
                          onConfirm={() => remove(label)}
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

/** A label's name with its colour (an SVG dot: the page's CSP forbids inline styles). */
export function LabelChip({ label }: { label: { name: string; color: string } }) {
  return (
    <span class="label-chip">
      <svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true" focusable="false">
        <circle cx="6" cy="6" r="6" fill={label.color} />
      </svg>
      {label.name}
    </span>
  );
}
