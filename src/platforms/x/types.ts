/** X API v2 shapes used by the adapter. */

export interface XProblem {
  title?: string;
  detail?: string;
  type?: string;
  status?: number;
  /** Usage-cap problems (`…/problems/usage-capped`): the cap's period (`Monthly`) and scope (`Product`, `Account`). */
  period?: string;
  scope?: string;
  errors?: { message?: string; code?: number; parameters?: Record<string, unknown> }[];
}

export interface ProcessingInfo {
  state: "pending" | "in_progress" | "succeeded" | "failed";
  check_after_secs?: number;
  progress_percent?: number;
  error?: { code?: number; name?: string; message?: string };
}

export interface MediaUploadResponse {
  data?: {
    id: string;
    media_key?: string;
    size?: number;
    expires_after_secs?: number;
    processing_info?: ProcessingInfo;
  };
}

export interface CreateTweetResponse {
  data?: { id: string; text: string };
}

export interface PublicMetrics {
  retweet_count?: number;
  reply_count?: number;
  like_count?: number;
  quote_count?: number;
  bookmark_count?: number;
  impression_count?: number;
}

export interface TweetLookupResponse {
  data?: { id: string; text: string; public_metrics?: PublicMetrics };
  errors?: { detail?: string; title?: string }[];
}

export interface UserTweetsResponse {
  data?: {
    id: string;
    text: string;
    created_at?: string;
    referenced_tweets?: { type: "replied_to" | "quoted" | "retweeted"; id: string }[];
  }[];
}

export interface TokenResponse {
  token_type?: string;
  expires_in?: number;
  access_token?: string;
  refresh_token?: string;
  scope?: string;
  error?: string;
  error_description?: string;
}
