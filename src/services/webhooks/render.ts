import type { Config } from "../../config";
import { presentPost } from "../../presenters/post";
import { presentSocialAccount } from "../../presenters/resources";
import { decodePostParts, type RawPostParts } from "../posts/post-rows";
import { decodeAccountSnapshot } from "./account-snapshot";

/**
 * The body of an event: `{type, timestamp, data}` with `data` the resource as the REST API shows it, rendered from
 * the snapshot the outbox statement captured (outbox.ts) — the state at the change, not at delivery.
 */
interface RenderContext {
  config: Pick<Config, "MEDIA_URL">;
  origin: string;
}

/** The snapshot's first four elements are the post's parts as the post reads select them (posts/post-rows.ts). */
function renderPost(ctx: RenderContext, parts: RawPostParts) {
  return presentPost(ctx, decodePostParts(parts));
}

export function renderData(ctx: RenderContext, type: string, subject: string): unknown {
  const parsed = JSON.parse(subject);
  if (type.startsWith("post.platform.")) {
    const post = renderPost(ctx, parsed);
    const rowId = parsed[4] as string;
    const platform = post.platforms.find((p) => p.id === rowId);
    return { ...platform, post_id: post.id };
  }
  if (type.startsWith("post.")) return renderPost(ctx, parsed);
  if (type.startsWith("account.")) return presentSocialAccount(decodeAccountSnapshot(parsed));
  return parsed;
}

export function renderPayload(ctx: RenderContext, event: { type: string; subject: string; createdAt: number }) {
  return JSON.stringify({
    type: event.type,
    timestamp: new Date(event.createdAt).toISOString(),
    data: renderData(ctx, event.type, event.subject),
  });
}
