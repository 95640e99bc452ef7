import type { Schema } from "../../../sdk/index";
import { Field } from "../../components/form";
import { type ComposerRow, type MetaFieldInfo, metaFieldsFor } from "../../lib/compose";
import { type Counter, type DraftProblem, rowCounters, rowProblems } from "../../lib/counters";
import { fieldId } from "../../lib/field-errors";
import type { MediaItem } from "./media";

export type PlatformEntry = Schema<"ContentTypesResponse">["platforms"][number];
type ContentTypeItem = PlatformEntry["content_types"][number];

const MB = 1024 * 1024;
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? "" : "s"}`;

/** What a content type takes, from GET /api/content-types: the fit notes shown beside the media. */
export function fitNotes(type: ContentTypeItem | undefined): string[] {
  if (!type) return [];
  const notes = [type.description];
  const kinds = type.allowed_media_types.join(" or ");
  notes.push(
    type.requires_media
      ? `Needs ${kinds}: at least 1, at most ${type.max_media_count}.`
      : type.max_media_count > 0
        ? `Takes up to ${plural(type.max_media_count, "media item")} (${kinds}).`
        : "Takes no media.",
  );
  const r = type.media_rules;
  if (r.image?.max_bytes)
    notes.push(`Images up to ${Math.round(r.image.max_bytes / MB)} MB (larger ones are downscaled).`);
  if (r.image?.min_aspect_ratio && r.image.max_aspect_ratio)
    notes.push(
      `Image shape between ${r.image.min_aspect_ratio.toFixed(2)} and ${r.image.max_aspect_ratio.toFixed(2)} (width ÷ height).`,
    );
  if (r.video?.max_duration_seconds)
    notes.push(
      `Videos ${r.video.min_duration_seconds ? `${r.video.min_duration_seconds}–` : "up to "}${r.video.max_duration_seconds} s${r.video.max_bytes ? `, up to ${Math.round(r.video.max_bytes / MB)} MB` : ""}.`,
    );
  if (!r.gif && type.allowed_media_types.includes("image")) notes.push("No GIFs.");
  if (r.mix_images_and_videos === false && type.allowed_media_types.length > 1)
    notes.push("Images and videos do not mix.");
  return notes;
}

export const ruleMedia = (items: readonly MediaItem[]) =>
  items
    .filter((m) => m.id)
    .map((m) => ({
      type: m.type,
      mimeType: m.mimeType,
      size: m.size,
      width: m.width,
      height: m.height,
      durationSeconds: m.durationSeconds,
      alt: m.alt.trim() === "" ? null : m.alt,
    }));

export function measure(row: ComposerRow, postContent: string, media: readonly MediaItem[]) {
  const draft = {
    platform: row.platform,
    contentType: row.contentType,
    postContent,
    postMedia: ruleMedia(media),
    content: row.ownText ? row.content : null,
    thread: row.thread,
    firstComment: row.firstComment.trim() === "" ? null : row.firstComment,
  };
  return { counters: rowCounters(draft), problems: rowProblems(draft) };
}

export function CounterText({ counter, id, inline }: { counter: Counter | undefined; id: string; inline?: boolean }) {
  // Always rendered (empty when nothing is counted): controls name it in aria-describedby.
  if (!counter) return <span id={id} class="counter" />;
  return (
    <span id={id} class={`counter${inline ? " counter-inline" : ""}${counter.over ? " counter-over" : ""}`}>
      {counter.length} / {counter.max}
      {counter.over ? ` — ${counter.length - counter.max} over` : ""}
    </span>
  );
}

export function RowEditor({
  row,
  index,
  tabName,
  accountName,
  spec,
  postContent,
  media,
  errors,
  onChange,
}: {
  row: ComposerRow;
  index: number;
  tabName: string;
  accountName: string;
  spec: PlatformEntry | undefined;
  postContent: string;
  media: MediaItem[];
  errors: Record<string, string>;
  onChange: (row: ComposerRow) => void;
}) {
  const p = `platforms.${index}`;
  const { counters, problems } = measure(row, postContent, media);
  const counterOf = (field: string) => counters.find((c) => c.field === field);
  const type = spec?.content_types.find((t) => t.value === row.contentType);
  const fields = metaFieldsFor((spec?.meta_fields ?? []) as MetaFieldInfo[], row.contentType);
  const threadMax = spec?.thread_max_items ?? null;
  const set = (patch: Partial<ComposerRow>) => onChange({ ...row, ...patch });
  const own: DraftProblem[] = problems.filter((x) => !x.shared);
  const shared: DraftProblem[] = problems.filter((x) => x.shared);
  return (
    <div class="row-editor">
      {errors[p] && (
        <p id={fieldId(p)} class="form-errors" tabIndex={-1}>
          {errors[p]}
        </p>
      )}
      <p class="muted small">
        {accountName} · {spec?.label ?? row.platform}
      </p>
      {spec && spec.content_types.length > 1 && (
        <Field path={`${p}.content_type`} label={`Format for ${tabName}`} error={errors[`${p}.content_type`]}>
          {(a) => (
            <select
              {...a}
              value={row.contentType}
              onChange={(e) => set({ contentType: (e.currentTarget as HTMLSelectElement).value })}
            >
              {spec.content_types.map((t) => (
                <option key={t.value} value={t.value}>
                  {t.label}
                </option>
              ))}
            </select>
          )}
        </Field>
      )}
      <label class="choice">
        <input
          type="checkbox"
          checked={row.ownText}
          onChange={(e) => {
            const on = (e.currentTarget as HTMLInputElement).checked;
            set({ ownText: on, content: on && row.content === "" ? postContent : row.content });
          }}
        />
        <span>Different text on {tabName}</span>
      </label>
      {row.ownText ? (
        <Field path={`${p}.content`} label={`Text for ${tabName}`} error={errors[`${p}.content`]} class="field-wide">
          {(a) => (
            <>
              <textarea
                {...a}
                aria-describedby={[a["aria-describedby"], `${a.id}-count`].filter(Boolean).join(" ")}
                rows={6}
                value={row.content}
                onInput={(e) => set({ content: (e.currentTarget as HTMLTextAreaElement).value })}
              />
              <CounterText counter={counterOf("content")} id={`${a.id}-count`} />
            </>
          )}
        </Field>
      ) : (
        <p class="small">
          Uses the text for all networks:{" "}
          <CounterText counter={counterOf("content")} id={`${fieldId(p)}-count`} inline />
        </p>
      )}
      {spec?.thread_max_items ? (
        <fieldset class="thread">
          <legend>Thread on {tabName}</legend>
          {errors[`${p}.thread`] && (
            <p id={fieldId(`${p}.thread`)} class="field-error" tabIndex={-1}>
              {errors[`${p}.thread`]}
            </p>
          )}
          {row.thread.length === 0 && <p class="small muted">Follow-up posts published as replies, in order.</p>}
          {row.thread.map((item, j) => (
            <Field
              key={j}
              path={`${p}.thread.${j}.content`}
              label={`Thread item ${j + 1} for ${tabName}`}
              error={errors[`${p}.thread.${j}.content`]}
            >
              {(a) => (
                <>
                  <textarea
                    {...a}
                    aria-describedby={[a["aria-describedby"], `${a.id}-count`].filter(Boolean).join(" ")}
                    rows={3}
                    value={item.content}
                    onInput={(e) =>
                      set({
                        thread: row.thread.map((t, k) =>
                          k === j ? { content: (e.currentTarget as HTMLTextAreaElement).value } : t,
                        ),
                      })
                    }
                  />
                  <CounterText counter={counterOf(`thread.${j}.content`)} id={`${a.id}-count`} />
                  <button
                    type="button"
                    class="button button-quiet"
                    onClick={() => set({ thread: row.thread.filter((_, k) => k !== j) })}
                  >
                    Remove thread item {j + 1}
                  </button>
                </>
              )}
            </Field>
          ))}
          <button
            type="button"
            class="button"
            disabled={threadMax !== null && row.thread.length >= threadMax}
            onClick={() => set({ thread: [...row.thread, { content: "" }] })}
          >
            Add thread item<span class="visually-hidden"> for {tabName}</span>
          </button>
        </fieldset>
      ) : null}
      {spec?.first_comment_max_length ? (
        <Field
          path={`${p}.first_comment`}
          label={`First comment on ${tabName}`}
          hint="Posted under the published post. Optional."
          error={errors[`${p}.first_comment`]}
        >
          {(a) => (
            <>
              <textarea
                {...a}
                aria-describedby={[a["aria-describedby"], `${a.id}-count`].filter(Boolean).join(" ")}
                rows={2}
                value={row.firstComment}
                onInput={(e) => set({ firstComment: (e.currentTarget as HTMLTextAreaElement).value })}
              />
              <CounterText counter={counterOf("first_comment")} id={`${a.id}-count`} />
            </>
          )}
        </Field>
      ) : null}
      {fields.length > 0 && (
        <fieldset>
          <legend>{spec?.label} settings</legend>
          {fields.map((f) => (
            <MetaInput
              key={f.name}
              field={f}
              path={`${p}.meta.${f.name}`}
              tabName={tabName}
              value={row.meta[f.name] ?? ""}
              error={errors[`${p}.meta.${f.name}`]}
              onChange={(v) => set({ meta: { ...row.meta, [f.name]: v } })}
            />
          ))}
        </fieldset>
      )}
      <section class="fit" aria-label={`What ${tabName} takes`}>
        <h2 class="small-heading">
          What {tabName} takes{type ? ` (${type.label})` : ""}
        </h2>
        <ul class="small">
          {fitNotes(type).map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      </section>
      {(own.length > 0 || shared.length > 0) && (
        <section class="problems" aria-label={`Problems on ${tabName}`}>
          <h2 class="small-heading">Scheduling would refuse this for {tabName}:</h2>
          <ul>
            {[...shared, ...own].map((x) => (
              <li key={x.field + x.message}>{x.message}</li>
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

const humanName = (name: string) => name.replaceAll("_", " ").replace(/^./, (c) => c.toUpperCase());

function MetaInput({
  field,
  path,
  tabName,
  value,
  error,
  onChange,
}: {
  field: MetaFieldInfo;
  path: string;
  tabName: string;
  value: string;
  error: string | undefined;
  onChange: (value: string) => void;
}) {
  const label = `${humanName(field.name)} (${tabName})`;
  const hint = `${field.description}${field.default !== undefined ? ` Default: ${String(field.default)}.` : ""}`;
  const onInput = (e: Event) => onChange((e.currentTarget as HTMLInputElement).value);
  return (
    <Field path={path} label={label} hint={hint} error={error}>
      {(a) =>
        field.type === "enum" ? (
          <select {...a} value={value} onChange={onInput}>
            <option value="">(default)</option>
            {(field.values ?? []).map((v) => (
              <option key={v} value={v}>
                {v}
              </option>
            ))}
          </select>
        ) : field.type === "boolean" ? (
          <select {...a} value={value} onChange={onInput}>
            <option value="">(default)</option>
            <option value="true">Yes</option>
            <option value="false">No</option>
          </select>
        ) : field.type === "integer" || field.type === "number" ? (
          <input
            {...a}
            type="number"
            step={field.type === "integer" ? 1 : "any"}
            min={field.min}
            value={value}
            onInput={onInput}
          />
        ) : field.type === "url" ? (
          <input {...a} type="url" maxLength={field.max_length} value={value} onInput={onInput} />
        ) : (
          <input
            {...a}
            type="text"
            maxLength={field.type === "string_list" ? undefined : field.max_length}
            placeholder={field.type === "string_list" ? "comma, separated" : undefined}
            value={value}
            onInput={onInput}
          />
        )
      }
    </Field>
  );
}

/** How the row would look on its network: the account, the text it publishes, its media, thread and comment. */
export function Preview({
  row,
  accountName,
  username,
  networkLabel,
  postContent,
  media,
}: {
  row: ComposerRow;
  accountName: string;
  username: string;
  networkLabel: string;
  postContent: string;
  media: MediaItem[];
}) {
  const text = row.ownText ? row.content : postContent;
  const { counters } = measure(row, postContent, media);
  const main = counters.find((c) => c.field === "content");
  const shown = media.filter((m) => m.id && m.url);
  return (
    <section class="preview" aria-label={`Preview on ${networkLabel}`}>
      <h2 class="small-heading">Preview on {networkLabel}</h2>
      <div class="preview-card">
        <p class="preview-account">
          <strong>{accountName}</strong> {username && <span class="muted">@{username}</span>}
        </p>
        <p class="preview-text">{text || <span class="muted">(no text)</span>}</p>
        {main?.over && <p class="counter-over small">{main.length - main.max} over the limit: it will not publish.</p>}
        {shown.length > 0 && (
          <div class={`preview-media preview-media-${Math.min(shown.length, 4)}`}>
            {shown.slice(0, 4).map((m) =>
              m.type === "image" ? (
                <img key={m.key} src={m.url ?? ""} alt={m.alt} />
              ) : (
                <span key={m.key} class="media-kind">
                  Video
                </span>
              ),
            )}
          </div>
        )}
        {row.thread.map((t, i) => (
          <p key={i} class="preview-reply">
            <span class="muted small">Reply {i + 1}</span>
            <br />
            {t.content}
          </p>
        ))}
        {row.firstComment.trim() && (
          <p class="preview-reply">
            <span class="muted small">First comment</span>
            <br />
            {row.firstComment}
          </p>
        )}
      </div>
    </section>
  );
}
