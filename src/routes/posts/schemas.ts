import { z } from "@hono/zod-openapi";
import { MEDIA_ALT_MAX } from "../../catalog/alt-text";
import { CONTENT_TYPES, PLATFORMS } from "../../catalog/platforms";
import {
  CONTENT_MAX_CHARACTERS,
  PLATFORM_META_MAX_BYTES,
  POST_LABELS_MAX,
  POST_MEDIA_MAX,
  POST_PLATFORM_UPDATES_MAX,
  POST_TARGETS_MAX,
  THREAD_ITEM_MEDIA_MAX,
  THREAD_ITEMS_MAX,
} from "../../lib/bounds";
import { boundedMetaDepth } from "../../lib/json-bounds";
import { parseUserDateTime } from "../../lib/time";
import {
  REPEAT_COUNT_MAX,
  REPEAT_EVERY_MAX,
  REPEAT_VARIATIONS_MAX,
  REPEAT_VARIATIONS_MIN,
} from "../../services/posts/repeat-rule";
import { isTimeZone } from "../../services/queues/slot-times";
import { ymdHis } from "../openapi";
import { LabelSchema } from "../schemas";

/** Request and response schemas of the post endpoints (api.md "Post", decisions §6). */

const POST_STATUSES = ["draft", "scheduled", "publishing", "published", "partially_published", "failed"] as const;

export { CONTENT_MAX_CHARACTERS };

const codePoints = (s: string) => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/** A text field of at most CONTENT_MAX_CHARACTERS code points: the post's content, a row's, a thread item's, a comment. */
const boundedText = () =>
  z.string().refine((s) => codePoints(s) <= CONTENT_MAX_CHARACTERS, {
    message: `The :attribute field must not be greater than ${CONTENT_MAX_CHARACTERS} characters.`,
  });

const contentField = boundedText().nullable().optional().openapi({
  description:
    "Post body shared by all platforms; at most 10000 characters (code points). Per-platform caps apply when scheduling and publishing.",
});

/** Issue 37: add to queue (docs/queues.md). */
const queueIdField = z.string().min(1).max(64).optional().openapi({
  description:
    "A queue of this workspace, or `default`: the post takes the queue's next free slot after now (with `status: scheduled` on PUT; on POST the post is created `scheduled`). With `scheduled_at`, exactly that slot: it must be one of the queue's upcoming slot times and free (422 otherwise). Up to 64 characters.",
  example: "default",
});

const queuePositionField = z.enum(["last", "next"]).optional().openapi({
  description:
    "With `queue_id`: `last` (default) takes the queue's next free slot; `next` takes its earliest slot, each queued post from there to the first free slot moving down one place (docs/queues.md).",
});

const reservationIdField = z.string().min(1).max(64).optional().openapi({
  description:
    "A live reservation of this workspace (`POST /api/queues/{queue}/reservations`): the post takes exactly its slot, once (with `status: scheduled` on PUT). Not with `queue_id` or `scheduled_at`.",
});

/** Issue 37 (docs/queues.md, "Repeating posts"). */
const RepeatRequest = z
  .object({
    every: z
      .number()
      .int()
      .min(1)
      .max(REPEAT_EVERY_MAX)
      .openapi({ description: `1–${REPEAT_EVERY_MAX}: the step between two occurrences, in \`unit\`s.` }),
    unit: z.enum(["day", "week", "month"]),
    until: z
      .string()
      .max(40)
      .nullable()
      .optional()
      .refine((v) => v === undefined || v === null || parseUserDateTime(v) !== null, {
        message: "The :attribute field must be a valid date.",
      })
      .openapi({ description: "No occurrence after this time (read like `scheduled_at`). Stored and shown in UTC." }),
    count: z
      .number()
      .int()
      .min(1)
      .max(REPEAT_COUNT_MAX)
      .nullable()
      .optional()
      .openapi({ description: `Occurrences in all, the first included; at most ${REPEAT_COUNT_MAX}.` }),
    variations: z
      .array(boundedText())
      .min(REPEAT_VARIATIONS_MIN)
      .max(REPEAT_VARIATIONS_MAX)
      .nullable()
      .optional()
      .openapi({
        description: `${REPEAT_VARIATIONS_MIN}–${REPEAT_VARIATIONS_MAX} texts (each at most ${CONTENT_MAX_CHARACTERS} characters) the occurrences after the first use in turn, in place of \`content\`.`,
      }),
    time_zone: z
      .string()
      .max(64)
      .refine(isTimeZone, "The :attribute field must be an IANA time zone name (e.g. Europe/Paris).")
      .nullable()
      .optional()
      .openapi({
        description: "IANA zone whose wall clock the series keeps (default `UTC`).",
        example: "Europe/Paris",
      }),
  })
  .nullable()
  .optional()
  .openapi("RepeatRequest", {
    description:
      "Issue 37: the post repeats. When an occurrence settles, the next is created as its own scheduled post (`repeat_of` names the first). null removes the rule (on PUT).",
  });

/** Inline (not a named component) so the Post's `repeat` stays nullable in the OpenAPI document. */
export const RepeatSchema = z.object({
  every: z.number().int(),
  unit: z.enum(["day", "week", "month"]),
  until: ymdHis.nullable(),
  count: z.number().int().nullable(),
  variations: z.array(z.string()).nullable(),
  time_zone: z.string(),
});

const scheduledAtField = z.string().nullable().optional().openapi({
  description:
    "ISO 8601 with `Z` or an offset; a bare `Y-m-d H:i:s` or `Y-m-d` is read as UTC. Stored and returned in UTC.",
  example: "2026-12-01T09:00:00Z",
});

const contentTypeField = z
  .enum(CONTENT_TYPES)
  .openapi({ description: "One of the 21 content types; must fit the account's platform." });

const mediaRefs = z
  .array(
    z
      .looseObject({ id: z.uuid().openapi({ description: "Id of a media item of this workspace." }) })
      .openapi({ description: "A Media object (or just `{id}`); the server fills in the canonical fields." }),
  )
  .max(POST_MEDIA_MAX)
  .optional()
  .openapi({
    description: `Media of this workspace by id, in order; at most ${POST_MEDIA_MAX} (the largest max_media_count of the catalog). On PUT the list replaces the current one.`,
  });

/** Issue 20 (docs/threads.md): a row's own text, its thread and its first comment. */
const rowContentField = boundedText().nullable().optional().openapi({
  description:
    "This row's own text, replacing the post's `content` on this network; null (or absent) uses the post's content. Checked against the network's rules like the post's content.",
});

const ThreadItemRequest = z
  .object({
    content: boundedText().openapi({
      description: "The item's text, checked against the network's limits when scheduled.",
    }),
    media: z
      .array(z.looseObject({ id: z.uuid() }))
      .max(THREAD_ITEM_MEDIA_MAX)
      .optional()
      .openapi({ description: `Media of this workspace by id, at most ${THREAD_ITEM_MEDIA_MAX}.` }),
  })
  .openapi("ThreadItemRequest");

const threadField = z
  .array(ThreadItemRequest)
  .max(THREAD_ITEMS_MAX)
  .nullable()
  .optional()
  .openapi({
    description: `Follow-up items published in order as replies to the row's post (X, Bluesky, Threads, Mastodon); at most ${THREAD_ITEMS_MAX}. On PUT it replaces the row's thread; null or [] removes it.`,
  });

const firstCommentField = boundedText().nullable().optional().openapi({
  description:
    "Posted under the published post: a comment on Facebook, Instagram, LinkedIn and YouTube, a reply on X, Bluesky, Threads and Mastodon. null removes it.",
});

const signatureIdField = z.uuid().optional().openapi({
  description: "A signature of this workspace whose content is appended (after a blank line) to the text.",
});

const labelIds = z
  .array(z.uuid())
  .max(POST_LABELS_MAX)
  .optional()
  .openapi({
    description: `Labels of this workspace, at most ${POST_LABELS_MAX}. On PUT the list replaces the current one.`,
  });

export const CreatePostRequest = z
  .object({
    platforms: z
      .array(
        z.object({
          social_account_id: z
            .uuid()
            .openapi({ description: "An active, connected social account of this workspace." }),
          content_type: contentTypeField,
          meta: z
            .unknown()
            .refine(() => false, {
              message: "The :attribute field is not accepted here; set it with PUT /api/posts/{post}.",
            })
            .optional()
            .openapi({ description: "Not accepted on creation." }),
          content: rowContentField,
          thread: threadField,
          first_comment: firstCommentField,
        }),
      )
      .max(POST_TARGETS_MAX)
      .refine((a) => a.length > 0, { message: "The :attribute field is required." })
      .openapi({
        description: `One target per entry; at least one, at most ${POST_TARGETS_MAX}; each account at most once.`,
      }),
    content: contentField,
    media: mediaRefs,
    scheduled_at: scheduledAtField.openapi({
      description: "Must be in the future. Default: today 09:00 UTC (kept on the draft even if already past).",
    }),
    queue_id: queueIdField,
    queue_position: queuePositionField,
    reservation_id: reservationIdField,
    repeat: RepeatRequest,
    label_ids: labelIds,
  })
  .openapi("CreatePostRequest");

export const UpdatePostRequest = z
  .object({
    status: z.enum(["draft", "scheduled", "publishing"]).optional().openapi({
      description:
        "`scheduled` checks every enabled platform's rules; `publishing` hands the enabled rows to the publish queue.",
    }),
    content: contentField,
    signature_id: signatureIdField.openapi({
      description:
        "A signature of this workspace appended (after a blank line) to the post's content — to `content` when sent, else to the stored content.",
    }),
    scheduled_at: scheduledAtField,
    queue_id: queueIdField,
    queue_position: queuePositionField,
    reservation_id: reservationIdField,
    repeat: RepeatRequest,
    media: mediaRefs,
    label_ids: labelIds,
    platforms: z
      .array(
        z.object({
          id: z
            .uuid()
            .optional()
            .openapi({ description: "Post-platform row to change. Without it the entry adds a target." }),
          enabled: z.boolean().optional().openapi({ description: "Defaults to true when the entry is listed." }),
          content_type: contentTypeField.optional(),
          meta: z
            .object({})
            .catchall(z.unknown())
            .superRefine(boundedMetaDepth) // depth here; the merged size is PLATFORM_META_MAX_BYTES (update-post)
            .optional()
            .openapi({
              description: `Shallow-merged into the row's meta; a null value removes the key. Pinterest: \`board_id\`; TikTok: \`privacy_level\`. The merged meta is at most ${PLATFORM_META_MAX_BYTES} bytes as JSON.`,
              example: { board_id: "549755885175" },
            }),
          social_account_id: z
            .uuid()
            .optional()
            .openapi({ description: "With `content_type` and no `id`: adds this account as a target." }),
          content: rowContentField,
          thread: threadField,
          first_comment: firstCommentField,
          signature_id: signatureIdField.openapi({
            description:
              "A signature of this workspace appended (after a blank line) to this row's own text — the `content` sent, else the row's, else the post's — which becomes the row's `content`.",
          }),
        }),
      )
      .max(POST_PLATFORM_UPDATES_MAX)
      .optional()
      .openapi({
        description: `At most ${POST_PLATFORM_UPDATES_MAX} entries. Rows not listed keep their state; a post has at most ${POST_TARGETS_MAX} targets in all.`,
      }),
  })
  .openapi("UpdatePostRequest");

/** A bound of the list's `scheduled_at` window (`GET /api/posts?scheduled_from=…&scheduled_to=…`). */
const scheduledBound = (description: string, example: string) =>
  z
    .string()
    .optional()
    .refine((v) => v === undefined || parseUserDateTime(v) !== null, {
      message: "The :attribute field must be a valid date.",
    })
    .openapi({ description, example });

export const ListPostsQuery = z.object({
  page: z
    .string()
    .optional()
    .openapi({ description: "Page number (15 per page); anything but a positive integer reads as 1.", example: "1" }),
  status: z.enum(POST_STATUSES).optional().openapi({ description: "Only posts with this status." }),
  label_id: z.uuid().optional().openapi({ description: "Only posts carrying this label." }),
  social_account_id: z
    .uuid()
    .optional()
    .openapi({ description: "Only posts with a row for this social account (enabled or not)." }),
  scheduled_from: scheduledBound(
    "Only posts scheduled at or after this time: ISO 8601 with `Z` or an offset; a bare `Y-m-d H:i:s` or `Y-m-d` is read as UTC.",
    "2026-12-01T00:00:00Z",
  ),
  scheduled_to: scheduledBound(
    "Only posts scheduled before this time (not at it): the same formats as `scheduled_from`. With both, a calendar's month or week.",
    "2027-01-01T00:00:00Z",
  ),
});

export const MediaSchema = z
  .object({
    id: z.uuid(),
    path: z.string().openapi({ example: "medias/0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a.jpg" }),
    url: z.string(),
    type: z.enum(["image", "video"]),
    mime_type: z.string(),
    original_filename: z.string(),
    size: z.number().int().nullable(),
    width: z.number().int().nullable(),
    height: z.number().int().nullable(),
    duration_seconds: z
      .number()
      .nullable()
      .openapi({ description: "Videos: duration read from the MP4/MOV container; null for images." }),
    alt: z
      .string()
      .nullable()
      .openapi({
        description: `Alt text: what the image or video shows, for people who cannot see it (at most ${MEDIA_ALT_MAX} characters). Sent to every network that takes one; scheduling checks it against each enabled network's own limit. null: none.`,
      }),
  })
  .openapi("Media");

const followUpResult = {
  status: z.enum(["pending", "published", "failed"]).openapi({
    description:
      "`pending` until the publish job reaches it; `failed` with `error_message` when it could not be posted (the row's post stays published).",
  }),
  platform_post_id: z.string().nullable(),
  platform_url: z.string().nullable(),
  error_message: z.string().nullable(),
};

export const ThreadItemSchema = z
  .object({ content: z.string(), media: z.array(MediaSchema), ...followUpResult })
  .openapi("ThreadItem");

export const FirstCommentSchema = z.object({ content: z.string(), ...followUpResult }).openapi("FirstComment");

export const PostPlatformSchema = z
  .object({
    id: z.uuid(),
    platform: z.string().openapi({ description: `One of ${PLATFORMS.join(", ")}.` }),
    content_type: z.string().openapi({ description: "One of the 21 content types." }),
    status: z.enum(["pending", "publishing", "published", "failed"]),
    enabled: z.boolean(),
    platform_url: z.string().nullable(),
    published_at: ymdHis.nullable(),
    error_message: z.string().nullable(),
    display_name: z.string(),
    display_username: z.string(),
    display_avatar: z.string(),
    social_account: z.object({
      id: z.uuid(),
      platform: z.string(),
      display_name: z.string(),
      username: z.string(),
      is_active: z.boolean(),
      status: z.enum(["connected", "disconnected", "token_expired"]),
    }),
    meta: z.record(z.string(), z.unknown()),
    platform_post_id: z.string().nullable(),
    content: z
      .string()
      .optional()
      .openapi({ description: "Issue 20: the row's own text; absent when the row uses the post's content." }),
    thread: z
      .array(ThreadItemSchema)
      .optional()
      .openapi({ description: "Issue 20: the row's thread with each item's result; absent when it has none." }),
    first_comment: FirstCommentSchema.optional().openapi({
      description: "Issue 20: the row's first comment with its result; absent when it has none.",
    }),
  })
  .openapi("PostPlatform");

export const PostSchema = z
  .object({
    id: z.uuid(),
    content: z.string().nullable(),
    media: z.array(MediaSchema),
    status: z.enum(POST_STATUSES),
    scheduled_at: ymdHis.nullable(),
    published_at: ymdHis.nullable(),
    queue_id: z.string().nullable().openapi({
      description:
        "Issue 37: the queue whose slot the post holds (added with `queue_id`, docs/queues.md); null when scheduled by hand or not scheduled.",
    }),
    repeat: RepeatSchema.nullable().openapi({
      description:
        'Issue 37: the post\'s series rule (docs/queues.md, "Repeating posts"); null when it does not repeat.',
    }),
    repeat_of: z.uuid().nullable().openapi({
      description:
        "Issue 37: the series' first post (a repeat's later occurrence) or the published post an evergreen queue copied; null for an original.",
    }),
    platforms: z.array(PostPlatformSchema),
    labels: z.array(LabelSchema),
    created_at: ymdHis,
    updated_at: ymdHis,
  })
  .openapi("Post");

const PageLinkSchema = z.object({
  url: z.string().nullable(),
  label: z.string(),
  page: z.number().int().nullable(),
  active: z.boolean(),
});

export const PostPageSchema = z
  .object({
    data: z.array(PostSchema),
    links: z.object({ first: z.string(), last: z.string(), prev: z.string().nullable(), next: z.string().nullable() }),
    meta: z.object({
      current_page: z.number().int(),
      from: z.number().int().nullable(),
      last_page: z.number().int(),
      links: z.array(PageLinkSchema),
      path: z.string(),
      per_page: z.number().int(),
      to: z.number().int().nullable(),
      total: z.number().int(),
    }),
  })
  .openapi("PostPage");

export const PreviewItemSchema = z
  .object({
    post_platform_id: z.uuid(),
    platform: z.string(),
    content_type: z.string(),
    content_length: z
      .number()
      .int()
      .openapi({ description: "Counted as the platform counts (X weighted, Bluesky graphemes, Mastodon URLs as 23)." }),
    max_content_length: z.number().int(),
    media_count: z.number().int(),
    max_media_count: z.number().int(),
    problems: z.array(z.string()).openapi({
      description:
        "Why the row would fail at publish time; empty when it would publish. For a repeating post on X or LinkedIn without variations (or with a row text of its own) also that the later occurrences repeat the text, which the network refuses (issue 37).",
    }),
    thread: z
      .array(
        z.object({
          content_length: z.number().int(),
          max_content_length: z.number().int(),
          media_count: z.number().int(),
          max_media_count: z.number().int(),
        }),
      )
      .optional()
      .openapi({ description: "Issue 20: each thread item measured like the row; absent when the row has none." }),
    first_comment: z
      .object({ content_length: z.number().int(), max_content_length: z.number().int() })
      .optional()
      .openapi({ description: "Issue 20: the first comment measured; absent when the row has none." }),
  })
  .openapi("PostPreviewItem");
