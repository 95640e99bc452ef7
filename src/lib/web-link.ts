/**
 * A link a network gave us (a post's `platform_url`), kept only when it is an http(s) URL. A tenant chooses its
 * Mastodon server (and so what that server answers as a status's `url`): a `javascript:` or `data:` URL would run
 * in the dashboard of whoever clicks it. Issue 35, review 4 (Low); the dashboard checks again before rendering.
 */
export function webLink(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const { protocol } = new URL(url);
    return protocol === "https:" || protocol === "http:" ? url : null;
  } catch {
    return null;
  }
}
