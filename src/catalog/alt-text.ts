import { graphemeLength } from "./text-length";

/**
 * Issue 29: alt text — a media item's description for people who cannot see it (`media.alt`, docs/media.md "Alt
 * text"). The API stores at most MEDIA_ALT_MAX characters (docs/decisions.md: Mastodon's default
 * `description_limit`, the largest limit the networks that state one share; LinkedIn's 4,086 is the only larger one);
 * scheduling checks each target network's own limit, counted as that network counts it:
 * - X: 1,000 characters (docs.x.com/x-api/media/metadata-create, `alt_text.text`);
 * - Mastodon: the instance's `configuration.media_attachments.description_limit` as stored on the account (read at
 *   connect and at publish once a day old), else Mastodon's default 1,500 (docs.joinmastodon.org/methods/media/#v2
 *   `description`, docs.joinmastodon.org/entities/Instance/#description_limit);
 * - Pinterest: 500 (developers.pinterest.com/docs/api/v5/pins-create, `alt_text`);
 * - Bluesky: 2,000 graphemes (the lexicon states none; Bluesky's app stops at 2,000);
 * - LinkedIn: 4,086 (Posts API `content.media.altText`);
 * - Threads (`alt_text`), Facebook (`alt_text_custom` on page photos) and Instagram (`alt_text` on image containers):
 *   no stated limit.
 * Networks absent here take no alt text through their API (TikTok, YouTube): the text is kept and shown, and not
 * checked for them.
 */
export const MEDIA_ALT_MAX = 1500;

export const ALT_TEXT_MAX: Readonly<Record<string, number | null>> = {
  x: 1000,
  mastodon: 1500,
  pinterest: 500,
  bluesky: 2000,
  linkedin: 4086,
  "linkedin-page": 4086,
  threads: null,
  facebook: null,
  instagram: null,
  "instagram-facebook": null,
};

/** Networks that receive `alt` (src/platforms/<name>/). */
export const takesAltText = (platform: string) => platform in ALT_TEXT_MAX;

const codePoints = (s: string) => [...s].length;

/** Length of an alt text as `platform` counts it. */
export const altTextLength = (platform: string, text: string) =>
  platform === "bluesky" ? graphemeLength(text) : codePoints(text);

/**
 * Why one media item's alt text does not fit `platform`, or null. `n` is its 1-based place. `accountMax` is the
 * account's own server's limit where it states one (a Mastodon instance's `description_limit`, read at connect and
 * again at publish once a day old), which replaces the network's default.
 */
export function altTextProblem(
  platform: string,
  label: string,
  n: number,
  alt: string | null | undefined,
  accountMax?: number,
) {
  const max = accountMax ?? ALT_TEXT_MAX[platform];
  if (!alt || max === null || max === undefined) return null;
  const length = altTextLength(platform, alt);
  if (length <= max) return null;
  const over = length - max;
  return `${label}: the alt text of media item ${n} is too long by ${over} character${over === 1 ? "" : "s"} (max ${max.toLocaleString("en-US")}).`;
}
