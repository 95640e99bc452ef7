import type { Config } from "../../config";
import { CONTAINER_POLL, type ContainerFate, type ProcessingState, waitForContainer } from "../meta/containers";
import { GraphClient, type GraphParams } from "../meta/graph";
import type { InsightsResponse } from "../meta/types";
import type { AdapterContext } from "../types";
import { containerState } from "./transform";
import type { IgCommentList, IgContainerStatus, IgIdResponse, IgMediaList, IgPermalink } from "./types";

/**
 * Instagram's two hosts, both on the META_GRAPH_API_VERSION (config):
 * - `instagram` (Instagram Login) → INSTAGRAM_GRAPH_URL + /{version}
 * - `instagram-facebook` (Facebook Login) → FACEBOOK_GRAPH_URL + /{version}
 */

export type InstagramFlavour = "instagram" | "instagram-facebook";

export const INSTAGRAM_LABEL = "Instagram";

export function instagramClient(ctx: AdapterContext, flavour: InstagramFlavour, token: string): GraphClient {
  const c: Config = ctx.config;
  return new GraphClient(ctx, {
    label: INSTAGRAM_LABEL,
    host: flavour === "instagram" ? c.INSTAGRAM_GRAPH_URL : c.FACEBOOK_GRAPH_URL,
    version: c.META_GRAPH_API_VERSION,
    token,
  });
}

export class InstagramApi {
  constructor(
    private readonly ctx: AdapterContext,
    private readonly graph: GraphClient,
    private readonly igUserId: string,
  ) {}

  async createContainer(params: GraphParams): Promise<string> {
    const res = await this.graph.postForm<IgIdResponse>(`/${this.igUserId}/media`, params);
    return res.id;
  }

  containerStatus(id: string): Promise<IgContainerStatus> {
    return this.graph.get<IgContainerStatus>(`/${id}`, { fields: "status_code,status" });
  }

  /** Polls `status_code` until FINISHED; ERROR/EXPIRED → permanent with Instagram's reason. */
  waitUntilFinished(id: string): Promise<void> {
    const check = async (): Promise<ProcessingState> =>
      containerState(await this.containerStatus(id), this.graph.label);
    return waitForContainer(this.ctx, check, { label: this.graph.label, ...CONTAINER_POLL });
  }

  /** A saved container on a retry: published, still publishable (waits while IN_PROGRESS), or gone. */
  async fate(id: string): Promise<ContainerFate> {
    const status = await this.containerStatus(id);
    if (status.status_code === "PUBLISHED") return "published";
    if (status.status_code === "EXPIRED" || status.status_code === "ERROR") return "gone";
    await this.waitUntilFinished(id);
    return "publishable";
  }

  /** `GET /{ig-user-id}/media` since a time (time-based paging), one small page, newest first. */
  recentMedia(sinceMs: number): Promise<IgMediaList> {
    return this.graph.get<IgMediaList>(`/${this.igUserId}/media`, {
      fields: "id,caption,timestamp,permalink,shortcode",
      since: String(Math.floor(sinceMs / 1000)),
      limit: "5",
    });
  }

  async publish(containerId: string): Promise<string> {
    const res = await this.graph.postForm<IgIdResponse>(`/${this.igUserId}/media_publish`, {
      creation_id: containerId,
    });
    return res.id;
  }

  /** `POST /{ig-media-id}/comments?message=…` → the comment id (`instagram_(business_)manage_comments`). */
  async comment(mediaId: string, message: string): Promise<string> {
    return (await this.graph.postForm<IgIdResponse>(`/${mediaId}/comments`, { message })).id;
  }

  /** The media's comments, one page of 50 (the edge has no time filter; a new post has few). */
  comments(mediaId: string): Promise<IgCommentList> {
    return this.graph.get<IgCommentList>(`/${mediaId}/comments`, {
      fields: "id,text,timestamp,username,from",
      limit: "50",
    });
  }

  get userId(): string {
    return this.igUserId;
  }

  permalink(mediaId: string): Promise<IgPermalink> {
    return this.graph.get<IgPermalink>(`/${mediaId}`, { fields: "permalink,shortcode" });
  }

  insights(mediaId: string, metrics: string): Promise<InsightsResponse> {
    return this.graph.get<InsightsResponse>(`/${mediaId}/insights`, { metric: metrics });
  }
}
