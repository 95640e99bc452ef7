import { errorMessage, type Schema } from "../../../sdk/index";
import { api } from "../../api";

/**
 * One file through the API's signed upload flow: `POST /api/uploads` (the SDK, typed) issues a one-shot URL; the
 * file goes to it as multipart field `field_name` with XMLHttpRequest so its upload progress can be shown (fetch has
 * no upload progress); the answer is the SDK's `StoredUpload`. The media is a workspace asset; saving the post
 * attaches it by id.
 */
export type Stored = Schema<"StoredUpload">;

export async function uploadFile(
  file: File,
  alt: string,
  onProgress: (fraction: number) => void,
  signal: AbortSignal,
): Promise<{ ok: true; stored: Stored } | { ok: false; message: string }> {
  const { data: issued, error } = await api.POST("/api/uploads", { body: {} });
  if (!issued) return { ok: false, message: errorMessage(error, "The upload could not be started.") };
  if (file.size > issued.max_bytes)
    return {
      ok: false,
      message: `${file.name} is ${(file.size / 1048576).toFixed(1)} MB; this server takes at most ${(issued.max_bytes / 1048576).toFixed(0)} MB.`,
    };
  const form = new FormData();
  form.append(issued.field_name, file, file.name);
  if (alt.trim()) form.append("alt", alt.trim());
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", issued.upload_url);
    xhr.responseType = "json";
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      const body = xhr.response as unknown;
      if (xhr.status >= 200 && xhr.status < 300 && body && typeof body === "object" && "media_id" in body)
        resolve({ ok: true, stored: body as Stored });
      else resolve({ ok: false, message: errorMessage(body, `The upload failed (${xhr.status}). Try again.`) });
    };
    xhr.onerror = () =>
      resolve({ ok: false, message: "The upload was interrupted. Check your connection and try again." });
    xhr.onabort = () => resolve({ ok: false, message: "Upload cancelled." });
    signal.addEventListener("abort", () => xhr.abort());
    xhr.send(form);
  });
}

/** Width and height of an image file, read in the browser (for the media rules before the server has it). */
export async function imageSize(file: File): Promise<{ width: number; height: number } | null> {
  if (!file.type.startsWith("image/") || typeof createImageBitmap !== "function") return null;
  try {
    const bitmap = await createImageBitmap(file);
    const size = { width: bitmap.width, height: bitmap.height };
    bitmap.close();
    return size;
  } catch {
    return null;
  }
}
