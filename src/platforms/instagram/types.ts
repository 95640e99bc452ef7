/** Instagram Graph shapes (Instagram Login on graph.instagram.com, Facebook Login on graph.facebook.com). */

/** `POST /{ig-id}/media` and `POST /{ig-id}/media_publish` → `{id}`. */
export interface IgIdResponse {
  id: string;
}

export type IgContainerStatusCode = "IN_PROGRESS" | "FINISHED" | "ERROR" | "EXPIRED" | "PUBLISHED";

/** `GET /{container-id}?fields=status_code,status`. */
export interface IgContainerStatus {
  id?: string;
  status_code?: IgContainerStatusCode;
  /** e.g. "Error: Media upload has failed with error code 2207026" */
  status?: string;
}

/** `GET /{media-id}?fields=permalink,shortcode`. */
export interface IgPermalink {
  id?: string;
  permalink?: string;
  shortcode?: string;
}

/** `GET /{ig-user-id}/media?fields=id,caption,timestamp,permalink,shortcode&since=…&limit=…`. */
export interface IgMediaList {
  data?: Array<{ id: string; caption?: string; timestamp?: string; permalink?: string; shortcode?: string }>;
}

/** `GET /{ig-media-id}/comments?fields=id,text,timestamp,username,from`. */
export interface IgCommentList {
  data?: Array<{
    id: string;
    text?: string;
    timestamp?: string;
    username?: string;
    from?: { id?: string; username?: string };
  }>;
}
