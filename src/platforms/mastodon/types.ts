/** Mastodon REST shapes used by the adapter (docs.joinmastodon.org, entities). */

export interface MastodonError {
  error?: string;
  error_description?: string;
}

export interface MediaAttachment {
  id: string;
  type: "image" | "video" | "gifv" | "audio" | "unknown";
  url: string | null;
  preview_url?: string | null;
  description?: string | null;
}

export interface Status {
  id: string;
  uri: string;
  url: string | null;
  created_at: string;
  content: string;
  visibility: string;
  media_attachments: MediaAttachment[];
  reblogs_count: number;
  favourites_count: number;
  replies_count: number;
  quotes_count?: number;
}
