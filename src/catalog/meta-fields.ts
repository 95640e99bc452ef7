import type { ContentType } from "./platforms";

/**
 * Issue 20: the per-row `meta` fields each network reads (`PUT /api/posts` `platforms[].meta`), shown by
 * `GET /api/content-types` as `meta_fields` so a client learns what each row accepts. A field listed here is checked
 * when it is set (422 `errors["platforms.N.meta.<name>"]`); keys not listed are stored as before, unchecked
 * (decisions §13: additions only). The adapters read these names (src/platforms/<name>/).
 */
export interface MetaFieldSpec {
  name: string;
  type: "string" | "url" | "integer" | "number" | "boolean" | "enum" | "string_list";
  description: string;
  /** Only when the row's content type is one of these (absent: every content type of the platform). */
  content_types?: ContentType[];
  /** Strings: most characters (code points); lists: most characters of each item. */
  max_length?: number;
  /** Strings: most UTF-8 bytes, where the network caps bytes (YouTube's description: 5,000 bytes). */
  max_bytes?: number;
  /** `enum`: the values accepted. */
  values?: string[];
  /** `string_list`: most items. */
  max_items?: number;
  /** Numbers: the smallest value. */
  min?: number;
  /** The value the adapter uses when the field is not set (absent: no fixed default, see the description). */
  default?: string | number | boolean;
}

const PINTEREST: MetaFieldSpec[] = [
  {
    name: "board_id",
    type: "string",
    description: "Board to pin to; required unless the account has a `default_board_id`.",
  },
  { name: "board_section_id", type: "string", description: "Section of the board." },
  { name: "title", type: "string", max_length: 100, description: "Pin title." },
  { name: "link", type: "url", max_length: 2048, description: "Destination link of the Pin (http or https)." },
  { name: "alt_text", type: "string", max_length: 500, description: "Alternative text of the image." },
  {
    name: "cover_image_url",
    type: "url",
    content_types: ["pinterest_video_pin"],
    description: "Cover image of a video Pin.",
  },
  {
    name: "cover_image_key_frame_time",
    type: "number",
    min: 0,
    content_types: ["pinterest_video_pin"],
    description: "Second of the video used as cover when no cover_image_url is given (default 1).",
  },
];

const YOUTUBE: MetaFieldSpec[] = [
  { name: "title", type: "string", max_length: 100, description: "Video title (default: the row's text)." },
  {
    name: "description",
    type: "string",
    max_bytes: 5000,
    description:
      "Video description: at most 5,000 bytes as UTF-8 (videos resource, snippet.description); `<` and `>` are sent as ‹ › (3 bytes each).",
  },
  {
    name: "privacy_status",
    type: "enum",
    values: ["public", "unlisted", "private"],
    default: "public",
    description:
      "Visibility (default public). A Google Cloud project that has not passed YouTube's API audit gets every upload locked private whatever is asked: the row then fails saying so (docs/platforms.md).",
  },
  {
    name: "category_id",
    type: "string",
    default: "22",
    description: "YouTube video category id (default 22, People & Blogs).",
  },
  {
    name: "made_for_kids",
    type: "boolean",
    default: false,
    description: "Self-declared made for kids (default false).",
  },
  { name: "tags", type: "string_list", max_items: 50, max_length: 100, description: "Video tags." },
  { name: "notify_subscribers", type: "boolean", default: true, description: "Notify subscribers (default true)." },
];

const TIKTOK: MetaFieldSpec[] = [
  {
    name: "privacy_level",
    type: "enum",
    values: ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"],
    description:
      "Who can see the post; must be one the creator offers (default: the most private offered). Falls back to the account's `privacy_level`.",
  },
  { name: "title", type: "string", max_length: 90, content_types: ["tiktok_photo"], description: "Photo post title." },
  { name: "disable_comment", type: "boolean", description: "Turn comments off (default true)." },
  {
    name: "disable_duet",
    type: "boolean",
    content_types: ["tiktok_video"],
    description: "Turn duets off (default true).",
  },
  {
    name: "disable_stitch",
    type: "boolean",
    content_types: ["tiktok_video"],
    description: "Turn stitches off (default true).",
  },
  { name: "brand_content_toggle", type: "boolean", description: "Paid partnership (default false)." },
  {
    name: "brand_organic_toggle",
    type: "boolean",
    description: "Promotes the creator's own business (default false).",
  },
  { name: "is_aigc", type: "boolean", content_types: ["tiktok_video"], description: "AI-generated content label." },
  {
    name: "video_source",
    type: "enum",
    values: ["FILE_UPLOAD", "PULL_FROM_URL"],
    content_types: ["tiktok_video"],
    description: "How TikTok gets the video (default FILE_UPLOAD).",
  },
  {
    name: "video_cover_timestamp_ms",
    type: "integer",
    min: 0,
    content_types: ["tiktok_video"],
    description: "Cover frame of the video, in milliseconds.",
  },
  {
    name: "photo_cover_index",
    type: "integer",
    min: 0,
    content_types: ["tiktok_photo"],
    description: "Which photo is the cover (0-based).",
  },
  {
    name: "auto_add_music",
    type: "boolean",
    content_types: ["tiktok_photo"],
    description: "Let TikTok add music (default true).",
  },
];

const INSTAGRAM: MetaFieldSpec[] = [
  {
    name: "collaborators",
    type: "string_list",
    max_items: 3,
    max_length: 30,
    content_types: ["instagram_feed", "instagram_carousel", "instagram_reel"],
    description: "Instagram usernames invited as collaborators (at most 3).",
  },
];

const LINKEDIN: MetaFieldSpec[] = [
  { name: "title", type: "string", max_length: 400, description: "Title of a video post." },
];

/** docs.joinmastodon.org/methods/statuses/#create: `visibility` of the status (and of its thread and comment). */
const MASTODON: MetaFieldSpec[] = [
  {
    name: "visibility",
    type: "enum",
    values: ["public", "unlisted", "private", "direct"],
    description:
      "Who sees the status, its thread items and its first comment: public, unlisted (quiet public), private (followers only) or direct (mentioned people only). Default public.",
  },
];

export const META_FIELDS: Readonly<Record<string, readonly MetaFieldSpec[]>> = {
  pinterest: PINTEREST,
  youtube: YOUTUBE,
  tiktok: TIKTOK,
  instagram: INSTAGRAM,
  "instagram-facebook": INSTAGRAM,
  linkedin: LINKEDIN,
  "linkedin-page": LINKEDIN,
  mastodon: MASTODON,
};

export const metaFieldsOf = (platform: string): readonly MetaFieldSpec[] => META_FIELDS[platform] ?? [];

const codePoints = (s: string) => [...s].length;
const utf8 = new TextEncoder();

/** Why `value` does not fit `spec`, or null. `attribute` is the field's name as messages show it. */
function metaValueProblem(spec: MetaFieldSpec, value: unknown, attribute: string): string | null {
  switch (spec.type) {
    case "string":
    case "url": {
      if (typeof value !== "string" && !(spec.name.endsWith("_id") && typeof value === "number")) {
        return `The ${attribute} field must be a string.`;
      }
      const s = String(value);
      if (spec.max_length !== undefined && codePoints(s) > spec.max_length) {
        return `The ${attribute} field must not be greater than ${spec.max_length} characters.`;
      }
      // YouTube refuses `<` and `>`; the adapter sends them as ‹ › (src/platforms/youtube/transform.ts), 3 bytes each.
      const bytes = utf8.encode(s.replace(/[<>]/g, "‹")).byteLength;
      if (spec.max_bytes !== undefined && bytes > spec.max_bytes) {
        return `The ${attribute} field must not be greater than ${spec.max_bytes.toLocaleString("en-US")} bytes as UTF-8 (${bytes.toLocaleString("en-US")} given).`;
      }
      if (spec.type === "url" && !/^https?:\/\/[^\s]+$/i.test(s)) {
        return `The ${attribute} field must be an http or https URL.`;
      }
      return null;
    }
    case "integer":
    case "number":
      if (
        typeof value !== "number" ||
        !Number.isFinite(value) ||
        (spec.type === "integer" && !Number.isInteger(value))
      ) {
        return `The ${attribute} field must be ${spec.type === "integer" ? "an integer" : "a number"}.`;
      }
      if (spec.min !== undefined && value < spec.min) return `The ${attribute} field must be at least ${spec.min}.`;
      return null;
    case "boolean":
      return typeof value === "boolean" ? null : `The ${attribute} field must be true or false.`;
    case "enum":
      return typeof value === "string" && spec.values?.includes(value)
        ? null
        : `The ${attribute} field must be one of: ${spec.values?.join(", ")}.`;
    case "string_list":
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string")) {
        return `The ${attribute} field must be a list of strings.`;
      }
      if (spec.max_items !== undefined && value.length > spec.max_items) {
        return `The ${attribute} field must not have more than ${spec.max_items} items.`;
      }
      if (spec.max_length !== undefined && value.some((v) => codePoints(v as string) > spec.max_length!)) {
        return `Each item of the ${attribute} field must not be greater than ${spec.max_length} characters.`;
      }
      return null;
  }
}

/**
 * The problems of the meta keys a request sets (`patch`; null values remove a key and are always fine), by key.
 * Only the platform's listed fields are checked; a field listed for other content types is refused for this one.
 */
export function checkMetaPatch(
  platform: string,
  contentType: string,
  patch: Record<string, unknown>,
  attributeOf: (key: string) => string,
): { key: string; message: string }[] {
  const specs = metaFieldsOf(platform);
  const problems: { key: string; message: string }[] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) continue;
    const spec = specs.find((s) => s.name === key);
    if (!spec) continue;
    if (spec.content_types && !(spec.content_types as string[]).includes(contentType)) {
      problems.push({
        key,
        message: `The ${attributeOf(key)} field applies only to ${spec.content_types.join(", ")}.`,
      });
      continue;
    }
    const problem = metaValueProblem(spec, value, attributeOf(key));
    if (problem) problems.push({ key, message: problem });
  }
  return problems;
}
