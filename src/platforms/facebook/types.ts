/** Facebook Page Graph shapes (platforms.md §4). */

/** `POST /{page-id}/feed` → `{id:"{page}_{post}"}` (+ `permalink_url` when asked with `fields`). */
export interface FbFeedResponse {
  id: string;
  permalink_url?: string;
}

/** `POST /{page-id}/photos` → `{id, post_id}` (`post_id` only when published). */
export interface FbPhotoResponse {
  id: string;
  post_id?: string;
}

/** `POST /{page-id}/videos` → `{id}`. */
export interface FbVideoResponse {
  id: string;
}

/** `POST /{page-id}/video_reels|video_stories?upload_phase=start` → `{video_id, upload_url}`. */
export interface FbUploadStart {
  video_id: string;
  upload_url: string;
}

/** rupload and `upload_phase=finish` → `{success:true}`; stories also give `post_id`. */
export interface FbSuccess {
  success?: boolean;
  post_id?: string;
  message?: string;
}

/** `POST /{page-id}/photo_stories` → `{success, post_id}`. */
export type FbStoryResponse = FbSuccess;

/** `GET /{video-id}?fields=status`. */
export interface FbVideoStatus {
  id?: string;
  status?: {
    video_status?: "upload_complete" | "processing" | "ready" | "error" | string;
    uploading_phase?: { status?: string; error?: { message?: string } };
    processing_phase?: { status?: string; error?: { message?: string } };
    publishing_phase?: { status?: string; error?: { message?: string } };
  };
}

/** `GET /{page-id}/published_posts` / `GET /{page-id}/videos` with `since` and `limit`. */
export interface FbRecentList {
  data?: Array<{ id: string; message?: string; description?: string; created_time?: string; permalink_url?: string }>;
}

/** `POST /{object-id}/comments` → the comment id (`{post-id-part}_{comment-id}`). */
export interface FbCommentResponse {
  id: string;
}

/** `GET /{object-id}/comments?fields=id,message,created_time,from`. */
export interface FbCommentList {
  data?: Array<{ id: string; message?: string; created_time?: string; from?: { id?: string; name?: string } }>;
}
