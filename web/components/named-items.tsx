import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { errorMessage } from "../../sdk/index";
import { ConfirmButton, type FieldErrorsMap, FormErrors, useFormErrors } from "./form";
import { EmptyState, LoadedView } from "./states";
import { useApi } from "./use-api";

/** What an API call of the SDK resolves to (the parts used here). */
type Called = { error?: unknown; response: Response };

/**
 * A settings section of named items a person creates, edits in place and deletes (labels, signatures): the create
 * form, the list with its loading, error and empty states, and per item Edit (the same form, inline) and Delete
 * behind a confirmation, each announcing its outcome in one status line. The item's own fields and how it shows are
 * the caller's: `fields` and `view`.
 */
export function NamedItemsSection<T extends { id: string; name: string }, B extends { name: string }>(props: {
  /** Lower case, singular: "label" (texts, ids and accessible names are built from it). */
  noun: string;
  title: string;
  intro?: ComponentChildren;
  canWrite: boolean;
  list: () => Promise<{ data?: T[] } & Called>;
  create: (body: B) => Promise<Called>;
  update: (item: T, body: B) => Promise<Called>;
  remove: (item: T) => Promise<Called>;
  /** The create form's first values, and what it keeps after a create (`afterCreate`, default: back to `blank`). */
  blank: B;
  afterCreate?: (created: B) => B;
  initialOf: (item: T) => B;
  /** The form's inputs; `prefix` keeps the ids of the create form and an edit form apart. */
  fields: (p: { body: B; set: (body: B) => void; errors: FieldErrorsMap; prefix: string }) => ComponentChildren;
  /** The API's field names, in form order (where a 422's messages go). */
  fieldNames: readonly string[];
  inlineForm?: boolean;
  view: (item: T) => ComponentChildren;
  deleteQuestion: (item: T) => string;
  empty: { title: string; text: string };
}) {
  const { noun, canWrite } = props;
  const Noun = noun[0]!.toUpperCase() + noun.slice(1);
  const { value, reload } = useApi(props.list, [], `The ${noun}s could not be loaded.`);
  const [editing, setEditing] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  /** Runs a create or an update; on success says so and reloads the list. */
  const saved = (done: string, call: () => Promise<Called>, then?: () => void) => async () => {
    const { error, response } = await call();
    if (response.ok) {
      then?.();
      setNotice(done);
      await reload();
    }
    return { ok: response.ok, error };
  };

  async function remove(item: T) {
    const { error, response } = await props.remove(item);
    setNotice(
      response.ok ? `${Noun} “${item.name}” deleted.` : errorMessage(error, `The ${noun} could not be deleted.`),
    );
    await reload();
  }

  const form = (p: { prefix: string; initial: B; submitLabel: string; onCancel?: () => void; item?: T }) => (
    <ItemForm<B>
      {...p}
      noun={noun}
      inline={props.inlineForm}
      fields={props.fields}
      fieldNames={props.fieldNames}
      reset={p.onCancel ? undefined : (created) => (props.afterCreate ?? (() => props.blank))(created)}
      onSave={(body) =>
        p.item
          ? saved(
              `${Noun} “${body.name}” saved.`,
              () => props.update(p.item!, body),
              () => setEditing(null),
            )()
          : saved(`${Noun} “${body.name}” created.`, () => props.create(body))()
      }
    />
  );

  return (
    <section aria-labelledby={`${noun}s-heading`}>
      <h2 id={`${noun}s-heading`}>{props.title}</h2>
      {props.intro}
      {canWrite && (
        <>
          <h3>New {noun}</h3>
          {form({ prefix: "new-", initial: props.blank, submitLabel: `Create ${noun}` })}
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
          <EmptyState title={props.empty.title}>
            <p>{props.empty.text}</p>
          </EmptyState>
        }
      >
        {(data) => (
          <ul class="item-list">
            {data.map((item) => (
              <li key={item.id} class="item">
                {editing === item.id ? (
                  form({
                    prefix: `edit-${item.id}-`,
                    initial: props.initialOf(item),
                    submitLabel: `Save ${noun}`,
                    onCancel: () => setEditing(null),
                    item,
                  })
                ) : (
                  <>
                    <span class="item-main">{props.view(item)}</span>
                    {canWrite && (
                      <span class="item-actions">
                        <button
                          type="button"
                          class="button"
                          aria-label={`Edit ${noun} ${item.name}`}
                          onClick={() => setEditing(item.id)}
                        >
                          Edit
                        </button>
                        <ConfirmButton
                          label="Delete"
                          name={`${noun} ${item.name}`}
                          question={props.deleteQuestion(item)}
                          confirmLabel="Yes, delete"
                          onConfirm={() => remove(item)}
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

/** The create or edit form of one item: its fields, a 422 on them (focus moved there), Save and Cancel. */
function ItemForm<B extends { name: string }>({
  noun,
  prefix,
  initial,
  submitLabel,
  inline,
  fields,
  fieldNames,
  reset,
  onSave,
  onCancel,
}: {
  noun: string;
  prefix: string;
  initial: B;
  submitLabel: string;
  inline?: boolean;
  fields: (p: { body: B; set: (body: B) => void; errors: FieldErrorsMap; prefix: string }) => ComponentChildren;
  fieldNames: readonly string[];
  /** After a successful save, the values the form shows next; absent: it keeps what it shows (it is closed). */
  reset?: (saved: B) => B;
  onSave: (body: B) => Promise<{ ok: boolean; error?: unknown }>;
  onCancel?: () => void;
}) {
  const [body, setBody] = useState(initial);
  const [busy, setBusy] = useState(false);
  const { errors, formRef, fail, clear } = useFormErrors();
  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    clear();
    const sent = { ...body, name: body.name.trim() };
    const result = await onSave(sent);
    setBusy(false);
    if (result.ok) {
      if (reset) setBody(reset(sent));
      return;
    }
    fail(result.error, fieldNames, `The ${noun} could not be saved. Try again.`, prefix);
  }
  return (
    <form ref={formRef} class={inline ? "inline-form" : undefined} onSubmit={submit}>
      {fields({ body, set: setBody, errors: errors.fields, prefix })}
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
