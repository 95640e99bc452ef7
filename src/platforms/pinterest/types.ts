/** Pinterest API v5 shapes (platforms.md §10). */

export type PinterestMediaSource =
  | { source_type: "image_url"; url: string }
  | {
      source_type: "multiple_image_urls";
      items: { url: string; title?: string; description?: string; link?: string }[];
      index: number;
    }
  | { source_type: "video_id"; media_id: string; cover_image_url?: string; cover_image_key_frame_time?: number };

export interface PinterestCreatePin {
  board_id: string;
  board_section_id?: string;
  title?: string;
  description: string;
  link?: string;
  alt_text?: string;
  media_source: PinterestMediaSource;
}

export interface PinterestPin {
  id: string;
  created_at?: string;
  board_id?: string;
  title?: string | null;
  description?: string | null;
  link?: string | null;
  media?: { media_type?: string };
}

/** `POST /v5/media` answer: an S3 presigned POST to make. */
export interface PinterestMediaUpload {
  media_id: string;
  media_type: "video";
  upload_url: string;
  upload_parameters: Record<string, string>;
}

export interface PinterestMediaStatus {
  media_id: string;
  media_type?: string;
  status: "registered" | "processing" | "succeeded" | "failed" | string;
}

/** Error body `{code, message}`. */
export interface PinterestErrorBody {
  code?: number;
  message?: string;
}

export type PinterestMetricName = "IMPRESSION" | "SAVE" | "PIN_CLICK" | "OUTBOUND_CLICK" | "VIDEO_MRC_VIEW";

export interface PinterestPinAnalytics {
  all?: {
    daily_metrics?: { date: string; data_status?: string; metrics?: Record<string, number> }[];
    summary_metrics?: Record<string, number>;
    lifetime_metrics?: Record<string, number>;
  };
}

export interface PinterestTokenResponse {
  access_token?: string;
  token_type?: string;
  expires_in?: number;
  scope?: string;
  refresh_token?: string;
  refresh_token_expires_in?: number;
  code?: number;
  message?: string;
  error?: string;
  error_description?: string;
}
