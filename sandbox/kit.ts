/**
 * Building blocks of the sandbox networks (sandbox/networks.ts): each network is one `Request → Response` handler
 * on one loopback origin, made of the test suite's fakes (test/support) plus what a person needs on top of them:
 * a consent page with a real form, pages for published posts, tokens that survive a restart and non-zero metrics.
 */

export type Handler = (request: Request) => Promise<Response>;
/** A handler that may pass (null): the next one in the chain answers. */
export type MaybeHandler = (request: Request) => Promise<Response | null> | Response | null;

export const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string);

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1f2328}
main{max-width:34rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:12px;box-shadow:0 1px 3px #0002}
h1{font-size:1.3rem;margin-top:0}.badge{display:inline-block;font-size:.75rem;padding:.1rem .5rem;border-radius:99px;background:#fff3c4;color:#6b4e00;border:1px solid #e2c66d}
button{font:inherit;padding:.55rem 1.2rem;border-radius:8px;border:1px solid #1f2328;cursor:pointer;margin-right:.5rem}
button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff}button:focus-visible,a:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
article{border:1px solid #d0d7de;border-radius:10px;padding:1rem;margin:1rem 0}.meta{color:#57606a;font-size:.875rem}
ul.scopes{padding-left:1.2rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.2rem 1rem}dt{color:#57606a}`;

export function html(title: string, body: string, status = 200): Response {
  return new Response(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`,
    { status, headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } },
  );
}

const SANDBOX_NOTE = `<p class="meta">A local sandbox network started by <code>npm run dev</code>: nothing here reaches the real network.</p>`;

/**
 * The consent page: GET shows who asks for what, with an "Authorize" and a "Cancel" button in a real form that
 * carries the authorization request; its POST replays the request to the fake's consent endpoint with the person's
 * decision, and the fake answers with the redirect back to the app (code + state, or the network's denial).
 */
export function consentPage(o: {
  label: string;
  path: string;
  account: string;
  /** The fake's consent handler (a GET of `path` with the authorization request in the query). */
  authorize: (request: Request, decision: "allow" | "deny") => Promise<Response | null>;
  scopeSeparator?: RegExp;
}): MaybeHandler {
  return async (req) => {
    const url = new URL(req.url);
    if (url.pathname !== o.path) return null;
    if (req.method === "GET") {
      const q = url.searchParams;
      const scopes = (q.get("scope") ?? "").split(o.scopeSeparator ?? /[\s,]+/).filter(Boolean);
      const hidden = [...q]
        .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
        .join("");
      const back = q.get("redirect_uri") ?? "";
      return html(
        `Authorize access — ${o.label} sandbox`,
        `<span class="badge">Sandbox</span><h1>${escapeHtml(o.label)}: authorize access</h1>
<p>An app at <strong>${escapeHtml(safeOrigin(back))}</strong> asks to act as <strong>${escapeHtml(o.account)}</strong>.</p>
${scopes.length ? `<p>It asks for:</p><ul class="scopes">${scopes.map((s) => `<li>${escapeHtml(s)}</li>`).join("")}</ul>` : ""}
<form method="post" action="${escapeHtml(o.path)}">${hidden}
<button type="submit" class="primary" name="decision" value="allow">Authorize</button>
<button type="submit" name="decision" value="deny">Cancel</button>
</form>${SANDBOX_NOTE}`,
      );
    }
    if (req.method === "POST") {
      const form = new URLSearchParams(await req.text());
      const decision = form.get("decision") === "deny" ? "deny" : "allow";
      form.delete("decision");
      const replay = new Request(`${url.origin}${o.path}?${form}`, { method: "GET" });
      return (await o.authorize(replay, decision)) ?? new Response("Not Found", { status: 404 });
    }
    return null;
  };
}

function safeOrigin(u: string): string {
  try {
    return new URL(u).origin;
  } catch {
    return "an unknown address";
  }
}

/** The network's home page (GET /): what this origin is and how to connect it. */
export function homePage(label: string, hint: string): MaybeHandler {
  return (req) =>
    req.method === "GET" && new URL(req.url).pathname === "/"
      ? html(
          `${label} sandbox`,
          `<span class="badge">Sandbox</span><h1>${escapeHtml(label)} sandbox</h1>
<p>A fake ${escapeHtml(label)} for local development: its consent page, token endpoint and publishing, media and metrics APIs answer here, and every post published to it has a page on this origin.</p>
<p>To use it: ${escapeHtml(hint)}.</p>
<p>To use the real ${escapeHtml(label)} instead, put its app credentials in <code>.dev.vars</code> and restart <code>npm run dev</code> (README "Local sandbox").</p>${SANDBOX_NOTE}`,
        )
      : null;
}

/** One published item as the sandbox's post page shows it. */
export interface ShownPost {
  id: string;
  text: string;
  created_at?: string;
  metrics?: Record<string, number>;
  media?: number;
}

/** A post page that knows only the id (a fake that keeps no text the sandbox can read). */
export const idOnly = (id: string): ShownPost => ({ id, text: "(published through the sandbox)" });

/**
 * The network's post pages (where the stored links point, POST_LINK_ORIGINS): `match` finds a post id in a page
 * path. A post this sandbox run does not hold (an earlier run, or a real account's link) is sent on to the real
 * network's page when `realOrigin` is given, else a page says so.
 */
export function postPages(o: {
  label: string;
  author: string;
  /** The post id a page URL names, or null when the URL is no post page. */
  match: (url: URL) => string | null;
  find: (id: string) => ShownPost | undefined;
  realOrigin?: string;
}): MaybeHandler {
  return (req) => {
    const url = new URL(req.url);
    if (req.method !== "GET") return null;
    const id = o.match(url);
    if (id === null) return null;
    const post = o.find(id);
    if (!post) {
      if (o.realOrigin) return Response.redirect(`${o.realOrigin}${url.pathname}${url.search}`, 302);
      return html(
        `Post not found — ${o.label} sandbox`,
        `<span class="badge">Sandbox</span><h1>${escapeHtml(o.label)}: post not found</h1><p>This sandbox run holds no post <code>${escapeHtml(id)}</code>: the sandbox keeps its posts in memory, so posts of an earlier <code>npm run dev</code> are gone.</p>${SANDBOX_NOTE}`,
        404,
      );
    }
    const metrics = Object.entries(post.metrics ?? {})
      .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${v}</dd>`)
      .join("");
    return html(
      `${o.author} on ${o.label} (sandbox)`,
      `<span class="badge">Sandbox</span><h1>${escapeHtml(o.label)}</h1>
<article aria-label="Published post"><p class="meta">${escapeHtml(o.author)}${post.created_at ? ` · <time datetime="${escapeHtml(post.created_at)}">${escapeHtml(post.created_at)}</time>` : ""}</p>
<p>${escapeHtml(post.text).replace(/\n/g, "<br>")}</p>${post.media ? `<p class="meta">${post.media} media attached</p>` : ""}
<p class="meta">Post id: <code>${escapeHtml(post.id)}</code></p>${metrics ? `<dl aria-label="Metrics">${metrics}</dl>` : ""}</article>${SANDBOX_NOTE}`,
    );
  };
}

/** FNV-1a of a text: the seed of a post's metrics, so the same post text always shows the same numbers. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * Deterministic, non-zero engagement for a post: `count` numbers from its text, the first in the thousands (views,
 * impressions), the others in the tens to hundreds.
 */
export function sandboxMetrics(text: string, count: number): number[] {
  let h = fnv1a(text) || 1;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    out.push(i === 0 ? 1000 + (h % 9000) : 1 + (h % (i === 1 ? 400 : 60)));
    h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) >>> 0 || 7;
  }
  return out;
}

/** The bearer token of a request: Authorization header, `access_token` query parameter or form field. */
export async function tokenOf(req: Request): Promise<string | null> {
  const auth = req.headers.get("authorization") ?? "";
  if (auth.startsWith("Bearer ")) return auth.slice(7);
  const url = new URL(req.url);
  const q = url.searchParams.get("access_token");
  if (q) return q;
  const type = req.headers.get("content-type") ?? "";
  if (req.method !== "GET" && type.includes("application/x-www-form-urlencoded")) {
    return new URLSearchParams(await req.clone().text()).get("access_token");
  }
  if (req.method !== "GET" && type.includes("application/json")) {
    const body = (await req
      .clone()
      .json()
      .catch(() => null)) as { access_token?: unknown } | null;
    return typeof body?.access_token === "string" ? body.access_token : null;
  }
  return null;
}

/** The same request on another origin (a fake answers on its own `https://….fake` origin). */
export async function onOrigin(req: Request, origin: string): Promise<Request> {
  const url = new URL(req.url);
  const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
  return new Request(`${origin}${url.pathname}${url.search}`, { method: req.method, headers: req.headers, body });
}

/** Every `https://….fake` origin the test fakes use (their API hosts, upload hosts, avatar hosts). */
const FAKE_ORIGIN = /https?:\/\/[a-z0-9.-]+\.fake(?![a-z0-9.-])/gi;

/**
 * A fake's answer with every `.fake` origin in it (upload URLs, media URLs, avatars, Location) replaced by the
 * sandbox's own, so the Worker and the browser come back to the sandbox rather than to a host that does not exist.
 */
export async function withOrigins(res: Response, to: string): Promise<Response> {
  const type = res.headers.get("content-type") ?? "";
  const headers = new Headers(res.headers);
  const location = headers.get("location");
  if (location) headers.set("location", location.replace(FAKE_ORIGIN, to));
  if (!/json|text|html|xml/.test(type) || res.body === null) {
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
  const text = (await res.text()).replace(FAKE_ORIGIN, to);
  headers.delete("content-length");
  return new Response(text, { status: res.status, statusText: res.statusText, headers });
}

/** The first handler that answers; 404 when none does. */
export function chain(...handlers: MaybeHandler[]): Handler {
  return async (req) => {
    for (const h of handlers) {
      const res = await h(req.clone());
      if (res) return res;
    }
    return new Response(JSON.stringify({ error: "not_found", message: "The sandbox has no such path." }), {
      status: 404,
      headers: { "content-type": "application/json" },
    });
  };
}

/** Profile pictures the fakes name (`…/alice.jpg`, now on the sandbox origin): a small SVG avatar. */
export function avatars(letter: string, color: string): MaybeHandler {
  return (req) =>
    req.method === "GET" && /\.(jpe?g|png|webp)$/i.test(new URL(req.url).pathname) ? avatar(letter, color) : null;
}

function avatar(letter: string, color: string): Response {
  return new Response(
    `<svg xmlns="http://www.w3.org/2000/svg" width="96" height="96" viewBox="0 0 96 96"><rect width="96" height="96" rx="48" fill="${color}"/><text x="48" y="62" font-family="sans-serif" font-size="44" text-anchor="middle" fill="#fff">${escapeHtml(letter)}</text></svg>`,
    { headers: { "content-type": "image/svg+xml", "cache-control": "max-age=3600" } },
  );
}
