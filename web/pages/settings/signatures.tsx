import type { Schema } from "../../../sdk/index";
import { api } from "../../api";
import { Field, inputValue } from "../../components/form";
import { NamedItemsSection } from "../../components/named-items";
import type { SectionProps } from "../settings";

type Signature = Schema<"Signature">;

/** Signatures: texts the composer appends to a post. */
export default function SignaturesSection({ canWrite }: SectionProps) {
  return (
    <NamedItemsSection<Signature, { name: string; content: string }>
      noun="signature"
      title="Signatures"
      canWrite={canWrite}
      list={() => api.GET("/api/signatures")}
      create={(body) => api.POST("/api/signatures", { body })}
      update={(s, body) => api.PUT("/api/signatures/{id}", { params: { path: { id: s.id } }, body })}
      remove={(s) => api.DELETE("/api/signatures/{id}", { params: { path: { id: s.id } } })}
      blank={{ name: "", content: "" }}
      initialOf={(s) => ({ name: s.name, content: s.content })}
      fieldNames={["name", "content"]}
      fields={({ body, set, errors, prefix }) => (
        <>
          <Field path={`${prefix}name`} label="Signature name" error={errors[`${prefix}name`]}>
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
          <Field
            path={`${prefix}content`}
            label="Signature text"
            hint="Added after a blank line at the end of a post when picked in the composer."
            error={errors[`${prefix}content`]}
          >
            {(a) => (
              <textarea
                {...a}
                required
                rows={3}
                value={body.content}
                onInput={(e) => set({ ...body, content: inputValue(e) })}
              />
            )}
          </Field>
        </>
      )}
      view={(s) => (
        <>
          <strong>{s.name}</strong>
          <span class="muted pre-line">{s.content}</span>
        </>
      )}
      deleteQuestion={(s) => `Delete signature “${s.name}”?`}
      empty={{
        title: "No signatures yet",
        text: canWrite
          ? "Create one above; the composer offers it under the text."
          : "An editor can add signatures here.",
      }}
    />
  );
}
