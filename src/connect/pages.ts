/**
 * The hosted connect pages: plain, accessible HTML (labels, fieldsets, one h1, no script) rendered on the server.
 * Pages carry opaque tokens and names only — never a token or secret of a network. Every value is escaped.
 */

/** The largest form a hosted page accepts (its fields are a few hundred bytes). */
export const CONNECT_FORM_MAX_BYTES = 16 * 1024;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#111}
h1{font-size:1.5rem}ul{list-style:none;padding:0}li{margin:.5rem 0}
button{font:inherit;padding:.4rem .9rem;cursor:pointer}input[type=text],input[type=url],input[type=password]{font:inherit;padding:.3rem;width:100%;box-sizing:border-box}
fieldset{margin:1rem 0;border:1px solid #bbb;padding:.8rem}label{display:block;margin:.3rem 0}
.error{border-left:4px solid #b00020;padding:.5rem 1rem;background:#fdecee}.ok{border-left:4px solid #1b7f3b;padding:.5rem 1rem;background:#e9f7ee}
img{vertical-align:middle;border-radius:50%;margin-right:.4rem}small{color:#555}.who{background:#f3f4f6;padding:.5rem 1rem}`;

/** Who asks: the workspace (and the link's purpose), named on every hosted page that knows them (issue 25). */
export interface Requester {
  workspace: string;
  purpose: string | null;
}

function requesterLine(requester: Requester | null | undefined): string {
  if (!requester) return "";
  const purpose = requester.purpose ? `<br>Purpose: ${escapeHtml(requester.purpose)}` : "";
  return `<p class="who">Workspace: <strong>${escapeHtml(requester.workspace)}</strong>${purpose}</p>\n`;
}

export function page(title: string, body: string, requester?: Requester | null): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>${escapeHtml(title)}</h1>
${requesterLine(requester)}${body}
</main>
</body>
</html>`;
}

/**
 * Headers of every connect page: no caching (pages carry single-use tokens), no framing (click-jacking), no
 * referrer (the link token is in the URL), no scripts at all.
 */
export const PAGE_HEADERS: Record<string, string> = {
  "Content-Type": "text/html; charset=utf-8",
  "Cache-Control": "no-store",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy":
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; form-action 'self' https: http:; base-uri 'none'; frame-ancestors 'none'",
};

export interface NetworkChoice {
  platform: string;
  label: string;
  needsInstance: boolean;
}

/** The hosted link page: one button per network, a Mastodon instance field, a Bluesky app-password form. */
export function linkPage(opts: {
  action: string;
  blueskyAction: string;
  csrf: string;
  networks: NetworkChoice[];
  requester: Requester;
  message?: { kind: "error" | "ok"; text: string };
}): string {
  const csrf = `<input type="hidden" name="csrf" value="${escapeHtml(opts.csrf)}">`;
  const oauth = opts.networks.filter((n) => !n.needsInstance);
  const mastodon = opts.networks.find((n) => n.needsInstance);
  const notice = opts.message
    ? `<p class="${opts.message.kind}" role="${opts.message.kind === "error" ? "alert" : "status"}">${escapeHtml(opts.message.text)}</p>`
    : "";
  const buttons = oauth
    .map(
      (n) =>
        `<li><form method="post" action="${escapeHtml(opts.action)}">${csrf}<input type="hidden" name="platform" value="${escapeHtml(n.platform)}"><button type="submit">Connect ${escapeHtml(n.label)}</button></form></li>`,
    )
    .join("\n");
  const mastodonForm = mastodon
    ? `<form method="post" action="${escapeHtml(opts.action)}">${csrf}<input type="hidden" name="platform" value="mastodon">
<fieldset><legend>Mastodon</legend>
<label for="instance">Your Mastodon server</label>
<input type="text" id="instance" name="instance" required placeholder="mastodon.social" autocomplete="url">
<button type="submit">Connect Mastodon</button></fieldset></form>`
    : "";
  const bluesky = `<form method="post" action="${escapeHtml(opts.blueskyAction)}">${csrf}
<fieldset><legend>Bluesky</legend>
<label for="identifier">Handle or email</label>
<input type="text" id="identifier" name="identifier" required autocomplete="username">
<label for="app_password">App password <small>(Settings → Privacy and security → App passwords)</small></label>
<input type="password" id="app_password" name="app_password" required autocomplete="off">
<label for="service">Server <small>(leave empty for bsky.social)</small></label>
<input type="url" id="service" name="service" placeholder="https://bsky.social">
<button type="submit">Connect Bluesky</button></fieldset></form>`;
  return page(
    "Connect your social accounts",
    `${notice}<p>The workspace above asks to publish to your accounts. Choose a network: you will sign in on the network's own site and come back here.</p>
<nav aria-label="Networks"><ul>
${buttons}
</ul></nav>
${mastodonForm}
${bluesky}`,
    opts.requester,
  );
}

export interface SelectionChoice {
  name: string;
  detail?: string;
  username: string;
  avatarUrl: string | null;
}

/** The selection page: checkboxes (several accounts) or radio buttons (one option, e.g. a default board). */
export function selectionPage(opts: {
  action: string;
  csrf: string;
  label: string;
  kind: "many" | "one-of";
  choices: SelectionChoice[];
  requester: Requester | null;
  error?: string;
}): string {
  const type = opts.kind === "many" ? "checkbox" : "radio";
  const items = opts.choices
    .map((c, i) => {
      const avatar = c.avatarUrl?.startsWith("https://")
        ? `<img src="${escapeHtml(c.avatarUrl)}" alt="" width="32" height="32">`
        : "";
      const detail = c.detail ? ` <small>${escapeHtml(c.detail)}</small>` : "";
      return `<li><label><input type="${type}" name="account" value="${i}"${type === "radio" && i === 0 ? " checked" : ""}> ${avatar}${escapeHtml(c.name)} <small>@${escapeHtml(c.username)}</small>${detail}</label></li>`;
    })
    .join("\n");
  const legend =
    opts.kind === "many" ? `Which ${opts.label} accounts should be connected?` : `Pick one for ${opts.label}`;
  const error = opts.error ? `<p class="error" role="alert">${escapeHtml(opts.error)}</p>` : "";
  return page(
    `Choose ${opts.label} accounts`,
    `${error}<form method="post" action="${escapeHtml(opts.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(opts.csrf)}">
<fieldset><legend>${escapeHtml(legend)}</legend><ul>
${items}
</ul></fieldset>
<button type="submit">Connect</button>
</form>`,
    opts.requester,
  );
}

export function resultPage(opts: {
  ok: boolean;
  title: string;
  text: string;
  accounts?: string[];
  requester?: Requester | null;
}): string {
  const list = opts.accounts?.length
    ? `<ul>${opts.accounts.map((a) => `<li>${escapeHtml(a)}</li>`).join("")}</ul>`
    : "";
  return page(
    opts.title,
    `<p class="${opts.ok ? "ok" : "error"}" role="${opts.ok ? "status" : "alert"}">${escapeHtml(opts.text)}</p>${list}<p>You can close this window.</p>`,
    opts.requester,
  );
}

/**
 * The first-party hop of a flow started through the API: names who asks, and only a deliberate "Continue" (a POST,
 * which link scanners and previews do not send) binds the flow to this browser and goes to the network.
 */
export function authorizePage(opts: { action: string; csrf: string; label: string; requester: Requester }): string {
  return page(
    `Connect your ${opts.label} account`,
    `<p>The workspace above asks to publish to your ${escapeHtml(opts.label)} account. Continue only if you expected this request: you will sign in on ${escapeHtml(opts.label)}'s own site and come back here.</p>
<form method="post" action="${escapeHtml(opts.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(opts.csrf)}">
<button type="submit">Continue to ${escapeHtml(opts.label)}</button>
</form>`,
    opts.requester,
  );
}
