/** Threads Graph shapes (platforms.md §7). */

/** `POST /{user-id}/threads` and `POST /{user-id}/threads_publish` → `{id}`. */
export interface ThreadsIdResponse {
  id: string;
}

export type ThreadsContainerStatusValue = "IN_PROGRESS" | "FINISHED" | "PUBLISHED" | "ERROR" | "EXPIRED";

/** `GET /{container-id}?fields=status,error_message`. */
export interface ThreadsContainerStatus {
  id?: string;
  status?: ThreadsContainerStatusValue;
  /** e.g. "FAILED_DOWNLOADING_VIDEO" */
  error_message?: string;
}

/** `GET /{thread-media-id}?fields=id,permalink,shortcode`. */
export interface ThreadsPermalink {
  id?: string;
  permalink?: string;
  shortcode?: string;
}

/** `GET /{threads-user-id}/threads?fields=id,text,timestamp,permalink,shortcode&since=…&limit=…`. */
export interface ThreadsList {
  data?: Array<{ id: string; text?: string; timestamp?: string; permalink?: string; shortcode?: string }>;
}

/** `GET /{threads-user-id}/replies?fields=id,text,timestamp,replied_to&since=…&limit=…`: the user's own replies. */
export interface ThreadsReplyList {
  data?: Array<{ id: string; text?: string; timestamp?: string; replied_to?: { id: string } }>;
}

/** `GET /{threads-user-id}/threads_publishing_limit` (posts: `quota_usage`, `config`; replies: `reply_*`). */
export interface ThreadsQuotaConfig {
  quota_total?: number;
  quota_duration?: number;
}
export interface ThreadsPublishingLimit {
  data?: {
    quota_usage?: number;
    config?: ThreadsQuotaConfig;
    reply_quota_usage?: number;
    reply_config?: ThreadsQuotaConfig;
  }[];
}
