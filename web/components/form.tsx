import type { ComponentChildren, JSX } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { fieldId, type MappedErrors, mapFieldErrors } from "../lib/field-errors";

/** What a control needs to be named by its label, described by its hint and error, and marked invalid. */
export interface ControlA11y {
  id: string;
  "aria-invalid"?: true;
  "aria-describedby"?: string;
}

/**
 * A labelled control with its hint and its error beside it (the error is also its description, so a screen reader
 * reads it on focus). `path` is the API's field path: the id of the control is `fieldId(path)`.
 */
export function Field({
  path,
  label,
  hint,
  error,
  children,
  class: cls,
}: {
  path: string;
  label: ComponentChildren;
  hint?: ComponentChildren;
  error?: string | undefined;
  children: (a11y: ControlA11y) => JSX.Element;
  class?: string;
}) {
  const id = fieldId(path);
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ");
  return (
    <div class={cls ? `field ${cls}` : "field"}>
      <label for={id}>{label}</label>
      {hint && (
        <p id={`${id}-hint`} class="field-hint">
          {hint}
        </p>
      )}
      {children({
        id,
        ...(error ? { "aria-invalid": true as const } : {}),
        ...(describedBy ? { "aria-describedby": describedBy } : {}),
      })}
      {error && (
        <p id={`${id}-error`} class="field-error">
          {error}
        </p>
      )}
    </div>
  );
}

/** Problems that belong to no one field, or the answer of a failed request. */
export function FormErrors({ messages }: { messages: readonly string[] }) {
  if (messages.length === 0) return null;
  return (
    <div class="form-errors" role="alert">
      {messages.length === 1 ? (
        <p>{messages[0]}</p>
      ) : (
        <ul>
          {messages.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

const NO_ERRORS: MappedErrors = { fields: {}, general: [], first: null };

/** Field path (with the form's prefix, if any) → its messages, joined. */
export type FieldErrorsMap = MappedErrors["fields"];

/**
 * A form's errors from the API: `fail(error, shownFields)` maps a 422 onto the fields and moves focus to the first
 * one with a problem (or to the general message); `clear()` empties them. `prefix`: the form's fields carry it in
 * their paths (two forms of the same kind on one page), the API's do not.
 */
export function useFormErrors() {
  const [errors, setErrors] = useState<MappedErrors>(NO_ERRORS);
  const focusPending = useRef(false);
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (!focusPending.current) return;
    focusPending.current = false;
    const target = errors.first
      ? document.getElementById(fieldId(errors.first))
      : formRef.current?.querySelector<HTMLElement>(".form-errors");
    if (target) {
      if (!errors.first) target.tabIndex = -1;
      target.focus();
    }
  }, [errors]);
  return {
    errors,
    formRef,
    fail(error: unknown, shown: readonly string[], fallback = "Something went wrong. Try again.", prefix = "") {
      const api = mapFieldErrors(error, shown);
      const mapped: MappedErrors = {
        fields: Object.fromEntries(Object.entries(api.fields).map(([k, v]) => [`${prefix}${k}`, v])),
        general: api.general,
        first: api.first === null ? null : `${prefix}${api.first}`,
      };
      if (!mapped.first && mapped.general.length === 0) mapped.general.push(fallback);
      focusPending.current = true;
      setErrors(mapped);
    },
    clear() {
      setErrors(NO_ERRORS);
    },
  };
}

/** A destructive action behind a second, explicit step: "Revoke" → "Revoke <name>? [Yes, revoke] [Cancel]". */
export function ConfirmButton({
  label,
  confirmLabel,
  question,
  onConfirm,
  disabled,
  name,
}: {
  /** The first button's text, e.g. "Revoke". Its accessible name adds `name` ("Revoke key Launch"). */
  label: string;
  name?: string;
  confirmLabel: string;
  question: string;
  onConfirm: () => Promise<void> | void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failed, setFailed] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  useEffect(() => {
    if (asking) yes.current?.focus();
    else if (returnFocus.current) {
      returnFocus.current = false;
      first.current?.focus();
    }
  }, [asking]);
  if (!asking)
    return (
      <>
        <button
          ref={first}
          type="button"
          class="button button-danger"
          disabled={disabled}
          aria-label={name ? `${label} ${name}` : undefined}
          onClick={() => setAsking(true)}
        >
          {label}
        </button>
        {failed && (
          <span class="field-error" role="alert">
            The server could not be reached. Try again.
          </span>
        )}
      </>
    );
  return (
    <fieldset class="confirm">
      <legend class="confirm-question">{question}</legend>
      <button
        ref={yes}
        type="button"
        class="button button-danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
            setFailed(false);
          } catch {
            setFailed(true);
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {busy ? "Working…" : confirmLabel}
      </button>
      <button
        type="button"
        class="button"
        onClick={() => {
          returnFocus.current = true;
          setAsking(false);
        }}
      >
        Cancel
      </button>
    </fieldset>
  );
}

/** A secret shown once (a new API key, a webhook signing secret), with a copy button and what to do with it. */
export function SecretOnce({ title, value, onDone }: { title: string; value: string; onDone: () => void }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  const box = useRef<HTMLElement>(null);
  useEffect(() => box.current?.focus(), []);
  return (
    <section class="secret-once" ref={box} tabIndex={-1} aria-label={title}>
      <p class="state-title">{title}</p>
      <p>Copy it now: it is shown only this once. Store it somewhere safe, such as a password manager.</p>
      <div class="secret-row">
        <label class="visually-hidden" for="secret-value">
          {title}
        </label>
        <input
          id="secret-value"
          class="secret-value"
          readOnly
          value={value}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button
          type="button"
          class="button"
          onClick={async () => {
            try {
              await navigator.clipboard.writeText(value);
              setCopied("yes");
            } catch {
              setCopied("failed");
            }
          }}
        >
          Copy
        </button>
      </div>
      <p role="status" class="small">
        {copied === "yes"
          ? "Copied to the clipboard."
          : copied === "failed"
            ? "Copy failed: select the text and copy it."
            : ""}
      </p>
      <button type="button" class="button button-primary" onClick={onDone}>
        I have stored it
      </button>
    </section>
  );
}

/** Reads a text input's or textarea's or select's value in an event handler. */
export const inputValue = (e: Event) => (e.currentTarget as HTMLInputElement).value;
