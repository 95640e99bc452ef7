import { jsonRow } from "../../db/json-rows";
import { labels, media, postPlatforms, posts, socialAccounts } from "../../db/schema";
import {
  ACCOUNT_FIELDS,
  LABEL_FIELDS,
  MEDIA_FIELDS,
  POST_FIELDS,
  POST_PLATFORM_FIELDS,
  type PresentPostInput,
} from "../../presenters/post";

/**
 * The row codecs of the Post resource (src/db/json-rows.ts): the columns `presentPost` shows, as the JSON arrays the
 * post reads select (load-posts.ts) and the webhook outbox captures at a change (webhooks/outbox.ts), and the way
 * back to rows. One set, so a read and an event render the same resource from the same columns.
 * Only the columns the resource shows: every column returned costs D1 time.
 */
export const postJson = jsonRow(posts, "posts", POST_FIELDS);
export const platformJson = jsonRow(postPlatforms, "pp", POST_PLATFORM_FIELDS);
export const accountJson = jsonRow(socialAccounts, "sa", ACCOUNT_FIELDS);
export const mediaJson = jsonRow(media, "m", MEDIA_FIELDS);
export const labelJson = jsonRow(labels, "l", LABEL_FIELDS);

type RawRow = unknown[];

/** The four parts of one post as selected (`[post, platforms, media, labels]`, each already JSON-parsed). */
export type RawPostParts = [RawRow, [RawRow, RawRow, RawRow[]?][], RawRow[], RawRow[]];

/** `presentPost`'s input from the parts: each platform entry is `[row, account, thread item media?]`. */
export function decodePostParts([post, platforms, mediaRows, labelRows]: RawPostParts): PresentPostInput {
  return {
    post: postJson.decode(post),
    platforms: platforms.map(([row, account, items]) => ({
      row: platformJson.decode(row),
      account: accountJson.decode(account),
      itemMedia: (items ?? []).map(mediaJson.decode),
    })),
    media: mediaRows.map(mediaJson.decode),
    labels: labelRows.map(labelJson.decode),
  };
}
