import { CONTAINER_POLL, type ContainerFate, type ProcessingState, waitForContainer } from "../meta/containers";
import { GraphClient, type GraphParams } from "../meta/graph";
import type { InsightsResponse } from "../meta/types";
import type { AdapterContext } from "../types";
import { containerState } from "./transform";
import type {
  ThreadsContainerStatus,
  ThreadsIdResponse,
  ThreadsList,
  ThreadsPermalink,
  ThreadsPublishingLimit,
  ThreadsReplyList,
} from "./types";

/** Threads Graph calls on THREADS_GRAPH_URL, at the THREADS_API_VERSION (config). */
export const THREADS_LABEL = "Threads";

export class ThreadsApi {
  private readonly graph: GraphClient;
  constructor(
    private readonly ctx: AdapterContext,
    token: string,
    private readonly userId: string,
  ) {
    this.graph = new GraphClient(ctx, {
      label: THREADS_LABEL,
      host: ctx.config.THREADS_GRAPH_URL,
      version: ctx.config.THREADS_API_VERSION,
      token,
    });
  }

  async createContainer(params: GraphParams): Promise<string> {
    return (await this.graph.postForm<ThreadsIdResponse>(`/${this.userId}/threads`, params)).id;
  }

  containerStatus(id: string): Promise<ThreadsContainerStatus> {
    return this.graph.get<ThreadsContainerStatus>(`/${id}`, { fields: "status,error_message" });
  }

  waitUntilFinished(id: string): Promise<void> {
    const check = async (): Promise<ProcessingState> => containerState(await this.containerStatus(id));
    return waitForContainer(this.ctx, check, { label: THREADS_LABEL, ...CONTAINER_POLL });
  }

  /** A saved container on a retry: published, still publishable (waits while IN_PROGRESS), or gone. */
  async fate(id: string): Promise<ContainerFate> {
    const status = await this.containerStatus(id);
    if (status.status === "PUBLISHED") return "published";
    if (status.status === "EXPIRED" || status.status === "ERROR") return "gone";
    await this.waitUntilFinished(id);
    return "publishable";
  }

  /** `GET /{threads-user-id}/threads` since a time, one small page, newest first. */
  recentThreads(sinceMs: number): Promise<ThreadsList> {
    return this.graph.get<ThreadsList>(`/${this.userId}/threads`, {
      fields: "id,text,timestamp,permalink,shortcode",
      since: String(Math.floor(sinceMs / 1000)),
      limit: "5",
    });
  }

  /**
   * `GET /{threads-user-id}/replies` since a time, one small page, newest first: the user's own replies (a reply is
   * not among `/threads`). Needs `threads_read_replies`.
   */
  recentReplies(sinceMs: number): Promise<ThreadsReplyList> {
    return this.graph.get<ThreadsReplyList>(`/${this.userId}/replies`, {
      fields: "id,text,timestamp,replied_to",
      since: String(Math.floor(sinceMs / 1000)),
      limit: "5",
    });
  }

  /**
   * `GET /{threads-user-id}/threads_publishing_limit`: posts (`quota_usage`, `config`; needs threads_basic and
   * threads_content_publish) or replies (`reply_quota_usage`, `reply_config`; also threads_manage_replies) used in
   * the last 24 hours. Asked for one kind only, so a missing reply permission cannot fail the post check.
   */
  publishingLimit(kind: "post" | "reply"): Promise<ThreadsPublishingLimit> {
    return this.graph.get<ThreadsPublishingLimit>(`/${this.userId}/threads_publishing_limit`, {
      fields: kind === "post" ? "quota_usage,config" : "reply_quota_usage,reply_config",
    });
  }

  async publish(containerId: string): Promise<string> {
    return (
      await this.graph.postForm<ThreadsIdResponse>(`/${this.userId}/threads_publish`, { creation_id: containerId })
    ).id;
  }

  permalink(mediaId: string): Promise<ThreadsPermalink> {
    return this.graph.get<ThreadsPermalink>(`/${mediaId}`, { fields: "id,permalink,shortcode" });
  }

  insights(mediaId: string, metrics: string): Promise<InsightsResponse> {
    return this.graph.get<InsightsResponse>(`/${mediaId}/insights`, { metric: metrics });
  }
}
