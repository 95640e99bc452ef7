import { CATALOG } from "../catalog/platforms";

/**
 * Upper bounds of every array (and open-ended object) a client sends, REST and MCP alike (decisions §13: "Every
 * array a client sends has a documented upper bound (422 past it)"). The request schemas use these with `.max()`,
 * so the OpenAPI document states them and a request past one answers 422 with `errors.<field>`; docs/limits.md
 * lists them with the reasons for each number. Every statement the code builds is shaped so that these sizes stay
 * far inside D1's per-statement limits (src/db/json-params.ts).
 */

/** `platforms[]` of `POST /api/posts`, and the targets a post may have in all (a big team posting everywhere). */
export const POST_TARGETS_MAX = 100;

/** `platforms[]` entries of one `PUT /api/posts/{post}` (each addresses a row or adds a target). */
export const POST_PLATFORM_UPDATES_MAX = POST_TARGETS_MAX;

/** `label_ids[]` on a post. */
export const POST_LABELS_MAX = 50;

/**
 * `media[]` on a post: the largest `max_media_count` of any content type (35, TikTok's photo carousel), so the
 * fullest carousel the catalog allows always fits.
 */
export const POST_MEDIA_MAX = Math.max(...CATALOG.flatMap((p) => p.content_types.map((t) => t.max_media_count)));

/** `urls[]` of `POST /api/posts/{post}/media/from-url` (api.md: "at most 10 per call"). */
export const MEDIA_URLS_MAX = 10;

/** A post-platform row's `meta` object, measured as its JSON text after the merge (board ids, privacy levels …). */
export const PLATFORM_META_MAX_BYTES = 4096;

/**
 * `platforms[].thread` items of one row (issue 20). X, Bluesky, Threads and Mastodon take threads of any length;
 * 25 follow-ups is a long thread for a person to read, and each item is one network call in one publish job.
 */
export const THREAD_ITEMS_MAX = 25;

/**
 * `platforms[].thread[].media` of one item: the largest `max_media_count` of the thread networks' post types
 * (Threads, 10); each item is checked against its own network's count when scheduled.
 */
export const THREAD_ITEM_MEDIA_MAX = 10;

/** Post `content` (and a row's own texts) at the API level, in code points (api.md). */
export const CONTENT_MAX_CHARACTERS = 10000;
