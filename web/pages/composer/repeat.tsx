import { Field } from "../../components/form";
import type { RepeatDraft } from "../../lib/compose";
import { fieldId } from "../../lib/field-errors";

/**
 * Issue 37: the composer's "Repeat" settings — every N days, weeks or months, ending never, after N times or on a
 * day, with texts the later occurrences use in turn. Saved as the post's `repeat` (docs/queues.md); each later
 * occurrence is a post of its own, created when the one before it goes out.
 */
export function RepeatSection({
  draft,
  onChange,
  errors,
  disabled,
  zone,
}: {
  draft: RepeatDraft;
  onChange: (d: RepeatDraft) => void;
  errors: Record<string, string | undefined>;
  disabled: boolean;
  zone: string;
}) {
  const set = (patch: Partial<RepeatDraft>) => onChange({ ...draft, ...patch });
  const variationsError = errors["repeat.variations"];
  return (
    <fieldset class="repeat">
      <legend>Repeat</legend>
      {errors.repeat && (
        <p id={fieldId("repeat")} class="field-error" tabIndex={-1}>
          {errors.repeat}
        </p>
      )}
      <label class="choice">
        <input
          type="checkbox"
          checked={draft.on}
          disabled={disabled}
          onChange={(ev) => set({ on: (ev.currentTarget as HTMLInputElement).checked })}
        />
        Repeat this post
      </label>
      {draft.on && (
        <>
          <div class="inline-row">
            <Field path="repeat.every" label="Every" error={errors["repeat.every"]}>
              {(a) => (
                <input
                  {...a}
                  type="number"
                  min={1}
                  max={365}
                  class="narrow"
                  value={draft.every}
                  disabled={disabled}
                  onInput={(ev) => set({ every: (ev.currentTarget as HTMLInputElement).value })}
                />
              )}
            </Field>
            <Field path="repeat.unit" label="Unit" error={errors["repeat.unit"]}>
              {(a) => (
                <select
                  {...a}
                  value={draft.unit}
                  disabled={disabled}
                  onChange={(ev) => set({ unit: (ev.currentTarget as HTMLSelectElement).value as RepeatDraft["unit"] })}
                >
                  <option value="day">days</option>
                  <option value="week">weeks</option>
                  <option value="month">months</option>
                </select>
              )}
            </Field>
            <Field path="repeat.ends" label="Ends">
              {(a) => (
                <select
                  {...a}
                  value={draft.ends}
                  disabled={disabled}
                  onChange={(ev) => set({ ends: (ev.currentTarget as HTMLSelectElement).value as RepeatDraft["ends"] })}
                >
                  <option value="never">Never</option>
                  <option value="count">After a number of times</option>
                  <option value="until">On a day</option>
                </select>
              )}
            </Field>
            {draft.ends === "count" && (
              <Field
                path="repeat.count"
                label="Times in all"
                hint="This post included; at most 100."
                error={errors["repeat.count"]}
              >
                {(a) => (
                  <input
                    {...a}
                    type="number"
                    min={1}
                    max={100}
                    class="narrow"
                    value={draft.count}
                    disabled={disabled}
                    onInput={(ev) => set({ count: (ev.currentTarget as HTMLInputElement).value })}
                  />
                )}
              </Field>
            )}
            {draft.ends === "until" && (
              <Field path="repeat.until" label="Last day" hint={`In ${zone}.`} error={errors["repeat.until"]}>
                {(a) => (
                  <input
                    {...a}
                    type="date"
                    value={draft.until}
                    disabled={disabled}
                    onInput={(ev) => set({ until: (ev.currentTarget as HTMLInputElement).value })}
                  />
                )}
              </Field>
            )}
          </div>
          <p class="small muted">
            Each time it goes out, the next one is scheduled as a post of its own, at the same time of day in {zone}.
          </p>
          <div class="field">
            <p class="field-label" id="repeat-variations-label">
              Other texts, used in turn after the first
            </p>
            <p class="field-hint">
              X and LinkedIn refuse the same text twice: give a repeating post at least two texts for them.
            </p>
            {variationsError && (
              <p id={fieldId("repeat.variations")} class="field-error" tabIndex={-1}>
                {variationsError}
              </p>
            )}
            <ol class="variations">
              {draft.variations.map((text, i) => (
                <li key={i}>
                  <Field
                    path={`repeat.variations.${i}`}
                    label={`Text ${i + 2}`}
                    error={errors[`repeat.variations.${i}`]}
                  >
                    {(a) => (
                      <textarea
                        {...a}
                        rows={2}
                        value={text}
                        disabled={disabled}
                        onInput={(ev) =>
                          set({
                            variations: draft.variations.map((v, j) =>
                              j === i ? (ev.currentTarget as HTMLTextAreaElement).value : v,
                            ),
                          })
                        }
                      />
                    )}
                  </Field>
                  <button
                    type="button"
                    class="button button-small"
                    disabled={disabled}
                    onClick={() => set({ variations: draft.variations.filter((_, j) => j !== i) })}
                  >
                    Remove text {i + 2}
                  </button>
                </li>
              ))}
            </ol>
            {draft.variations.length < 20 && (
              <button
                type="button"
                class="button button-small"
                disabled={disabled}
                onClick={() => set({ variations: [...draft.variations, ""] })}
              >
                Add a text
              </button>
            )}
          </div>
        </>
      )}
    </fieldset>
  );
}
