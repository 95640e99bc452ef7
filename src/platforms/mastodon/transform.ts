import type { Metric } from "../types";
import type { Status } from "./types";

/** Pure Mastodon transforms. */

export type Visibility = "public" | "unlisted" | "private" | "direct";
const VISIBILITIES: readonly string[] = ["public", "unlisted", "private", "direct"];

/** Row `meta.visibility` (checked at schedule time, src/catalog/meta-fields.ts), default `public`. */
export function visibilityOf(meta: Record<string, unknown>): Visibility {
  const v = meta.visibility;
  return typeof v === "string" && VISIBILITIES.includes(v) ? (v as Visibility) : "public";
}

export interface StatusBody {
  status: string;
  media_ids?: string[];
  /** The row's visibility, for its post, its thread items and its first comment alike. */
  visibility: Visibility;
  /** A reply: the status it answers (thread items and first comments, issue 20). */
  in_reply_to_id?: string;
}

export function statusBody(
  content: string,
  mediaIds: string[],
  inReplyToId?: string,
  visibility: Visibility = "public",
): StatusBody {
  const body: StatusBody = { status: content, visibility };
  if (mediaIds.length > 0) body.media_ids = mediaIds;
  if (inReplyToId) body.in_reply_to_id = inReplyToId;
  return body;
}

export const instanceOf = (meta: Record<string, unknown>) => String(meta.instance ?? "").replace(/\/+$/, "");

/** `status.url` when the instance gives one, else the canonical `{instance}/@{username}/{id}`. */
export function statusUrl(instance: string, username: string, status: Pick<Status, "id" | "url">): string {
  return status.url ?? `${instance}/@${username.replace(/^@/, "").split("@")[0]}/${status.id}`;
}

/** Labels of decisions §11: Favourites, Reblogs, Replies. */
export function metricsFromStatus(
  status: Pick<Status, "favourites_count" | "reblogs_count" | "replies_count">,
): Metric[] {
  return [
    { label: "Favourites", value: status.favourites_count ?? 0 },
    { label: "Reblogs", value: status.reblogs_count ?? 0 },
    { label: "Replies", value: status.replies_count ?? 0 },
  ];
}

const encoder = new TextEncoder();

/**
 * A multipart/form-data body whose file part is streamed (a video is never held whole in memory), with an exact
 * Content-Length so the instance sees an ordinary upload.
 */
export function multipartParts(
  boundary: string,
  fields: Record<string, string>,
  file: { field: string; filename: string; contentType: string },
): { head: Uint8Array; tail: Uint8Array } {
  let head = "";
  for (const [name, value] of Object.entries(fields)) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  }
  const filename = file.filename.replace(/["\r\n]/g, "_");
  head += `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${filename}"\r\nContent-Type: ${file.contentType}\r\n\r\n`;
  return { head: encoder.encode(head), tail: encoder.encode(`\r\n--${boundary}--\r\n`) };
}
