import { type ProcessingState, pollProcessing } from "../meta/containers";
import { GraphClient } from "../meta/graph";
import type { InsightsResponse } from "../meta/types";
import type { AdapterContext } from "../types";
import { reelState } from "./transform";
import type {
  FbCommentList,
  FbCommentResponse,
  FbFeedResponse,
  FbPhotoResponse,
  FbRecentList,
  FbStoryResponse,
  FbSuccess,
  FbUploadStart,
  FbVideoResponse,
  FbVideoStatus,
} from "./types";

/** Facebook Page Graph calls, on the META_GRAPH_API_VERSION (config). */
export const FACEBOOK_LABEL = "Facebook";
/** Reels usually finish in well under a minute; past the bound the reel is still committed (see adapter). */
export const REEL_POLL = { intervalMs: 3_000, maxAttempts: 40 };

export class FacebookApi {
  readonly graph: GraphClient;
  constructor(
    private readonly ctx: AdapterContext,
    token: string,
    readonly pageId: string,
  ) {
    this.graph = new GraphClient(ctx, {
      label: FACEBOOK_LABEL,
      host: ctx.config.FACEBOOK_GRAPH_URL,
      version: ctx.config.META_GRAPH_API_VERSION,
      token,
    });
  }

  feed(body: Record<string, unknown>): Promise<FbFeedResponse> {
    return this.graph.postJson<FbFeedResponse>(`/${this.pageId}/feed`, body, { fields: "id,permalink_url" });
  }

  photo(body: Record<string, unknown>): Promise<FbPhotoResponse> {
    return this.graph.postJson<FbPhotoResponse>(`/${this.pageId}/photos`, body);
  }

  video(body: Record<string, unknown>): Promise<FbVideoResponse> {
    return this.graph.postJson<FbVideoResponse>(`/${this.pageId}/videos`, body);
  }

  reelStart(): Promise<FbUploadStart> {
    return this.graph.postQuery<FbUploadStart>(`/${this.pageId}/video_reels`, { upload_phase: "start" });
  }

  reelFinish(videoId: string, description: string | undefined): Promise<FbSuccess> {
    return this.graph.postQuery<FbSuccess>(`/${this.pageId}/video_reels`, {
      upload_phase: "finish",
      video_id: videoId,
      video_state: "PUBLISHED",
      description,
    });
  }

  /** Hands Meta the public media URL (`file_url` header) on the rupload URL it returned, `Authorization: OAuth`. */
  uploadByUrl(uploadUrl: string, fileUrl: string): Promise<FbSuccess> {
    return this.graph.send<FbSuccess>(uploadUrl, { method: "POST", headers: { file_url: fileUrl } }, "OAuth");
  }

  videoStatus(videoId: string): Promise<FbVideoStatus> {
    return this.graph.get<FbVideoStatus>(`/${videoId}`, { fields: "status" });
  }

  /** True when the reel is ready, false when still processing after the bound; error → permanent. */
  waitForReel(videoId: string): Promise<boolean> {
    const check = async (): Promise<ProcessingState> => reelState(await this.videoStatus(videoId));
    return pollProcessing(this.ctx, check, { label: FACEBOOK_LABEL, ...REEL_POLL });
  }

  /**
   * The Page's posts since a time (`published_posts`: feed and photo posts, with `message`), or its videos
   * (`videos`, with `description`): one page of 5, newest first.
   */
  recent(edge: "published_posts" | "videos", sinceMs: number): Promise<FbRecentList> {
    return this.graph.get<FbRecentList>(`/${this.pageId}/${edge}`, {
      fields: edge === "videos" ? "id,description,created_time" : "id,message,created_time,permalink_url",
      since: String(Math.floor(sinceMs / 1000)),
      limit: "5",
    });
  }

  /** `POST /{object-id}/comments` as the Page (Page token; `pages_manage_engagement`). */
  comment(objectId: string, message: string): Promise<FbCommentResponse> {
    return this.graph.postJson<FbCommentResponse>(`/${objectId}/comments`, { message });
  }

  /** The object's comments since a time, newest first, one page of 25 (`filter=stream`: every comment, unranked). */
  recentComments(objectId: string, sinceMs: number): Promise<FbCommentList> {
    return this.graph.get<FbCommentList>(`/${objectId}/comments`, {
      fields: "id,message,created_time,from",
      filter: "stream",
      order: "reverse_chronological",
      since: String(Math.floor(sinceMs / 1000)),
      limit: "25",
    });
  }

  photoStory(photoId: string): Promise<FbStoryResponse> {
    return this.graph.postJson<FbStoryResponse>(`/${this.pageId}/photo_stories`, { photo_id: photoId });
  }

  videoStoryStart(): Promise<FbUploadStart> {
    return this.graph.postJson<FbUploadStart>(`/${this.pageId}/video_stories`, { upload_phase: "start" });
  }

  videoStoryFinish(videoId: string): Promise<FbStoryResponse> {
    return this.graph.postJson<FbStoryResponse>(`/${this.pageId}/video_stories`, {
      upload_phase: "finish",
      video_id: videoId,
    });
  }

  insights(postId: string, metrics: string): Promise<InsightsResponse> {
    return this.graph.get<InsightsResponse>(`/${postId}/insights`, { metric: metrics });
  }

  /** Every lifetime metric of a video or reel. */
  videoInsights(videoId: string): Promise<InsightsResponse> {
    return this.graph.get<InsightsResponse>(`/${videoId}/video_insights`);
  }
}
