import { useRef, useState } from "preact/hooks";
import { fieldId } from "../../lib/field-errors";

/** A media item of the post being written: uploaded (id), uploading (progress) or failed (error). */
export interface MediaItem {
  key: string;
  id: string | null;
  name: string;
  type: "image" | "video";
  /** A thumbnail: the stored file's URL, or the local file's blob: URL while it uploads. */
  url: string | null;
  alt: string;
  /** The alt text the server has (null: none); a different `alt` is saved with the post. */
  savedAlt: string | null;
  mimeType: string | null;
  size: number | null;
  width: number | null;
  height: number | null;
  durationSeconds: number | null;
  /** 0..1 while uploading; null when done. */
  progress: number | null;
  error: string | null;
  abort?: AbortController;
}

export function MediaSection({
  items,
  disabled,
  errors,
  onFiles,
  onAlt,
  onRemove,
  onMove,
}: {
  items: MediaItem[];
  disabled: boolean;
  errors: Record<string, string>;
  onFiles: (files: File[]) => void;
  onAlt: (key: string, alt: string) => void;
  onRemove: (key: string) => void;
  onMove: (key: string, by: -1 | 1) => void;
}) {
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const uploaded = items.filter((m) => m.id);
  return (
    <fieldset class="media-section">
      <legend>Media</legend>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target for the mouse; "Choose files" inside it is the keyboard's way */}
      <div
        class={`dropzone${over ? " dropzone-over" : ""}`}
        onDragOver={(e) => {
          e.preventDefault();
          if (!disabled) setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          if (!disabled && e.dataTransfer?.files.length) onFiles([...e.dataTransfer.files]);
        }}
      >
        <p>Drop images or videos here, or</p>
        <input
          ref={input}
          id="media-files"
          class="visually-hidden"
          type="file"
          multiple
          accept="image/jpeg,image/png,image/gif,image/webp,video/mp4,video/quicktime"
          disabled={disabled}
          onChange={(e) => {
            const files = (e.currentTarget as HTMLInputElement).files;
            if (files?.length) onFiles([...files]);
            (e.currentTarget as HTMLInputElement).value = "";
          }}
        />
        <label for="media-files" class="button">
          Choose files
        </label>
        <p class="small muted">JPEG, PNG, GIF, WebP (10 MB) or MP4 and MOV videos.</p>
      </div>
      {errors.media && (
        <p id={fieldId("media")} class="field-error" tabIndex={-1}>
          {errors.media}
        </p>
      )}
      {items.length > 0 && (
        <ul class="media-list">
          {items.map((m) => {
            const index = uploaded.findIndex((u) => u.key === m.key);
            const altPath = `media.${index}.alt`;
            const altError = index >= 0 ? errors[altPath] : undefined;
            const altId = index >= 0 ? fieldId(altPath) : `alt-${m.key}`;
            return (
              <li key={m.key} class="media-item">
                <div class="media-thumb">
                  {m.url && m.type === "image" ? (
                    <img src={m.url} alt="" />
                  ) : (
                    <span class="media-kind">{m.type === "video" ? "Video" : "Image"}</span>
                  )}
                </div>
                <div class="media-body">
                  <p class="media-name break">{m.name}</p>
                  {m.progress !== null && (
                    <div class="upload-progress">
                      <label for={`progress-${m.key}`}>Uploading {m.name}</label>
                      <progress id={`progress-${m.key}`} max={100} value={Math.round(m.progress * 100)}>
                        {Math.round(m.progress * 100)}%
                      </progress>
                      <span class="small">{Math.round(m.progress * 100)}%</span>
                      <button type="button" class="button button-quiet" onClick={() => m.abort?.abort()}>
                        Cancel upload<span class="visually-hidden"> of {m.name}</span>
                      </button>
                    </div>
                  )}
                  {m.error && (
                    <p class="field-error" role="alert">
                      {m.error}
                    </p>
                  )}
                  {m.progress === null && !m.error && (
                    <div class="field">
                      <label for={altId}>Alt text for {m.name}</label>
                      <textarea
                        id={altId}
                        rows={2}
                        maxLength={1500}
                        value={m.alt}
                        placeholder="What the image or video shows, for people who cannot see it"
                        aria-invalid={altError ? true : undefined}
                        aria-describedby={altError ? `${altId}-error` : undefined}
                        onInput={(e) => onAlt(m.key, (e.currentTarget as HTMLTextAreaElement).value)}
                      />
                      {altError && (
                        <p id={`${altId}-error`} class="field-error">
                          {altError}
                        </p>
                      )}
                    </div>
                  )}
                  <div class="item-actions">
                    {m.id && (
                      <>
                        <button type="button" class="button" disabled={index <= 0} onClick={() => onMove(m.key, -1)}>
                          Move earlier<span class="visually-hidden"> {m.name}</span>
                        </button>
                        <button
                          type="button"
                          class="button"
                          disabled={index < 0 || index >= uploaded.length - 1}
                          onClick={() => onMove(m.key, 1)}
                        >
                          Move later<span class="visually-hidden"> {m.name}</span>
                        </button>
                      </>
                    )}
                    {m.progress === null && (
                      <button type="button" class="button button-danger" onClick={() => onRemove(m.key)}>
                        Remove<span class="visually-hidden"> {m.name}</span>
                      </button>
                    )}
                  </div>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </fieldset>
  );
}
