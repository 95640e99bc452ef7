import type { Schema } from "../../../sdk/index";
import { api } from "../../api";
import { Field, inputValue } from "../../components/form";
import { NamedItemsSection } from "../../components/named-items";
import type { SectionProps } from "../settings";

type Label = Schema<"Label">;

/** Labels: list, create, rename or recolour, delete (it is detached from every post). */
export default function LabelsSection({ canWrite }: SectionProps) {
  return (
    <NamedItemsSection<Label, { name: string; color: string }>
      noun="label"
      title="Labels"
      intro={<p class="muted">Labels group posts; the calendar and the posts list filter by them.</p>}
      canWrite={canWrite}
      list={() => api.GET("/api/labels")}
      create={(body) => api.POST("/api/labels", { body })}
      update={(label, body) => api.PUT("/api/labels/{id}", { params: { path: { id: label.id } }, body })}
      remove={(label) => api.DELETE("/api/labels/{id}", { params: { path: { id: label.id } } })}
      blank={{ name: "", color: "#1d4ed8" }}
      // The colour stays for the next label.
      afterCreate={(created) => ({ ...created, name: "" })}
      initialOf={(label) => ({ name: label.name, color: label.color })}
      inlineForm
      fieldNames={["name", "color"]}
      fields={({ body, set, errors, prefix }) => (
        <>
          <Field path={`${prefix}name`} label="Label name" error={errors[`${prefix}name`]}>
            {(a) => (
              <input
                {...a}
                required
                maxLength={255}
                value={body.name}
                onInput={(e) => set({ ...body, name: inputValue(e) })}
              />
            )}
          </Field>
          <Field path={`${prefix}color`} label="Colour" error={errors[`${prefix}color`]}>
            {(a) => (
              <input {...a} type="color" value={body.color} onInput={(e) => set({ ...body, color: inputValue(e) })} />
            )}
          </Field>
        </>
      )}
      view={(label) => <LabelChip label={label} />}
      deleteQuestion={(label) => `Delete label “${label.name}”? It is removed from every post.`}
      empty={{
        title: "No labels yet",
        text: canWrite ? "Create one above, then pick it in the composer." : "An editor can create labels here.",
      }}
    />
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
