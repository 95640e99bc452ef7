import type { Config } from "../../config";
import { jsonRow } from "../../db/json-rows";
import { labels, media, postPlatforms, posts, socialAccounts } from "../../db/schema";
import {
  ACCOUNT_FIELDS,
  LABEL_FIELDS,
  MEDIA_FIELDS,
  POST_FIELDS,
  POST_PLATFORM_FIELDS,
  presentPost,
} from "../../presenters/post";
import { presentSocialAccount } from "../../presenters/resources";
import { decodeAccountSnapshot } from "./outbox";

/**
 * The body of an event: `{type, timestamp, data}` with `data` the resource as the REST API shows it, rendered from
 * the snapshot the outbox statement captured (outbox.ts) — the state at the change, not at delivery.
 */
const postJson = jsonRow(posts, "posts", POST_FIELDS);
const platformJson = jsonRow(postPlatforms, "pp", POST_PLATFORM_FIELDS);
const accountJson = jsonRow(socialAccounts, "sa", ACCOUNT_FIELDS);
const mediaJson = jsonRow(media, "m", MEDIA_FIELDS);
const labelJson = jsonRow(labels, "l", LABEL_FIELDS);

type Raw = unknown[];
interface RenderContext {
  config: Pick<Config, "MEDIA_URL">;
  origin: string;
}

function renderPost(
  ctx: RenderContext,
  [post, platforms, mediaRows, labelRows]: [Raw, [Raw, Raw, Raw[]?][], Raw[], Raw[]],
) {
  return presentPost(ctx, {
    post: postJson.decode(post),
    platforms: platforms.map(([row, account, items]) => ({
      row: platformJson.decode(row),
      account: accountJson.decode(account),
      itemMedia: (items ?? []).map(mediaJson.decode),
    })),
    media: mediaRows.map(mediaJson.decode),
    labels: labelRows.map(labelJson.decode),
  });
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
