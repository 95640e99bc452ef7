/** YouTube Data API v3 and Google OAuth shapes (platforms.md §9). */

export type YouTubePrivacyStatus = "public" | "unlisted" | "private";

export interface YouTubeInsertMetadata {
  snippet: { title: string; description: string; tags?: string[]; categoryId: string };
  status: { privacyStatus: YouTubePrivacyStatus; selfDeclaredMadeForKids: boolean; publishAt?: string };
}

export interface YouTubeVideo {
  kind?: "youtube#video";
  id: string;
  snippet?: { title?: string; description?: string; channelId?: string };
  status?: {
    uploadStatus?: "uploaded" | "processed" | "failed" | "rejected" | "deleted" | string;
    failureReason?: string;
    rejectionReason?: string;
    privacyStatus?: string;
  };
  processingDetails?: { processingStatus?: "processing" | "succeeded" | "failed" | "terminated" | string };
  /** Counts are strings. `likeCount`/`commentCount` are absent when hidden or disabled. */
  statistics?: { viewCount?: string; likeCount?: string; favoriteCount?: string; commentCount?: string };
}

export interface YouTubeVideoList {
  kind?: "youtube#videoListResponse";
  items?: YouTubeVideo[];
}

/** Google JSON error envelope. */
export interface GoogleErrorBody {
  error?: {
    code?: number;
    message?: string;
    errors?: { message?: string; domain?: string; reason?: string }[];
    status?: string;
  };
}

/** `oauth2.googleapis.com/token`: success, or flat `{error, error_description}`. */
export interface GoogleTokenResponse {
  access_token?: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  token_type?: string;
  error?: string;
  error_description?: string;
}

/** `youtube#comment` (the top-level comment of a thread). */
export interface YouTubeComment {
  id: string;
  snippet?: {
    videoId?: string;
    textOriginal?: string;
    textDisplay?: string;
    authorChannelId?: { value?: string };
    publishedAt?: string;
  };
}

/** `youtube#commentThread`: `commentThreads.insert` answers one, `commentThreads.list` a page of them. */
export interface YouTubeCommentThread {
  id: string;
  snippet?: { channelId?: string; videoId?: string; topLevelComment?: YouTubeComment };
}

export interface YouTubeCommentThreadList {
  items?: YouTubeCommentThread[];
}
