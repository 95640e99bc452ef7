/** TikTok Content Posting API v2 shapes (platforms.md §8). */

/** Every TikTok v2 response: `error.code === "ok"` means success, even inside HTTP 200. */
export interface TikTokEnvelope<T> {
  data?: T;
  error?: { code?: string; message?: string; log_id?: string };
}

export type TikTokPrivacyLevel = "PUBLIC_TO_EVERYONE" | "MUTUAL_FOLLOW_FRIENDS" | "FOLLOWER_OF_CREATOR" | "SELF_ONLY";

export interface TikTokCreatorInfo {
  creator_avatar_url?: string;
  creator_username?: string;
  creator_nickname?: string;
  privacy_level_options?: string[];
  comment_disabled?: boolean;
  duet_disabled?: boolean;
  stitch_disabled?: boolean;
  max_video_post_duration_sec?: number;
}

export interface TikTokVideoPostInfo {
  title: string;
  privacy_level: string;
  disable_duet: boolean;
  disable_comment: boolean;
  disable_stitch: boolean;
  video_cover_timestamp_ms?: number;
  brand_content_toggle: boolean;
  brand_organic_toggle: boolean;
  is_aigc: boolean;
}

export interface TikTokFileUploadSource {
  source: "FILE_UPLOAD";
  video_size: number;
  chunk_size: number;
  total_chunk_count: number;
}

export interface TikTokPullVideoSource {
  source: "PULL_FROM_URL";
  video_url: string;
}

export interface TikTokVideoInitRequest {
  post_info: TikTokVideoPostInfo;
  source_info: TikTokFileUploadSource | TikTokPullVideoSource;
}

export interface TikTokPhotoInitRequest {
  post_info: {
    title?: string;
    description: string;
    privacy_level: string;
    disable_comment: boolean;
    auto_add_music: boolean;
    brand_content_toggle: boolean;
    brand_organic_toggle: boolean;
  };
  source_info: { source: "PULL_FROM_URL"; photo_cover_index: number; photo_images: string[] };
  post_mode: "DIRECT_POST" | "MEDIA_UPLOAD";
  media_type: "PHOTO";
}

export interface TikTokInitData {
  publish_id: string;
  upload_url?: string;
}

export type TikTokPublishStatus =
  | "PROCESSING_UPLOAD"
  | "PROCESSING_DOWNLOAD"
  | "SEND_TO_USER_INBOX"
  | "PUBLISH_COMPLETE"
  | "FAILED";

export interface TikTokStatusData {
  status: TikTokPublishStatus | string;
  fail_reason?: string;
  /** TikTok's own spelling. int64 ids, filled only after moderation; may be empty for private posts. */
  publicaly_available_post_id?: Array<number | string>;
  uploaded_bytes?: number;
  downloaded_bytes?: number;
}

export interface TikTokTokenResponse {
  access_token?: string;
  expires_in?: number;
  open_id?: string;
  refresh_token?: string;
  refresh_expires_in?: number;
  scope?: string;
  token_type?: string;
  /** OAuth failures come back flat: `{error, error_description, log_id}` (or, rarely, the v2 envelope). */
  error?: string | { code?: string; message?: string; log_id?: string };
  error_description?: string;
  log_id?: string;
}
