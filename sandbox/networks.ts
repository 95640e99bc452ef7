/**
 * The sandbox networks of `npm run dev` (README "Local sandbox"): each network on one loopback origin, made of the
 * same fakes the test suite runs in workerd (test/support/oauth/fake-oauth.ts for connecting, test/support/fakes/*
 * for publishing and metrics), with, on top:
 * - a consent page with a real "Authorize" form (the fakes' consent endpoints approve at once);
 * - tokens taken as they come (a sandbox restarted by the next `npm run dev` forgets what it issued, while the
 *   Worker's D1 keeps the accounts);
 * - deterministic non-zero metrics for every post (`sandboxMetrics`, from the post's text);
 * - a page per published post where the stored links point (POST_LINK_ORIGINS).
 * Bundled by esbuild (sandbox/start.mjs) and run in Node: never part of the deployed Worker.
 */
import { BSKY_APPVIEW, BSKY_PLC, BSKY_VIDEO, FakeBluesky } from "../test/support/fakes/bluesky";
import { LINKEDIN_OAUTH_ORIGIN, LINKEDIN_ORIGIN, LinkedInFake } from "../test/support/fakes/linkedin";
import { FakeMastodon } from "../test/support/fakes/mastodon";
import { MetaGraphFake } from "../test/support/fakes/meta";
import { fakePinterest, PINTEREST_ORIGIN } from "../test/support/fakes/pinterest";
import { ThreadsFake } from "../test/support/fakes/threads";
import { fakeTikTok, TIKTOK_ORIGIN } from "../test/support/fakes/tiktok";
import { FakeX } from "../test/support/fakes/x";
import { fakeYouTube, GOOGLE_OAUTH_ORIGIN, YOUTUBE_ORIGIN } from "../test/support/fakes/youtube";
import {
  type FakeNetwork,
  fakeFacebookOAuth,
  fakeGoogleOAuth,
  fakeInstagramLoginOAuth,
  fakeLinkedInOAuth,
  fakeMastodonOAuth,
  fakePinterestOAuth,
  fakeThreadsOAuth,
  fakeTikTokOAuth,
  fakeXOAuth,
} from "../test/support/oauth/fake-oauth";
import {
  avatars,
  chain,
  consentPage,
  type Handler,
  homePage,
  idOnly,
  type MaybeHandler,
  onOrigin,
  postPages,
  type ShownPost,
  sandboxMetrics,
  tokenOf,
  withOrigins,
} from "./kit";
import { currentFake } from "./stubs/fake-fetch";

export { sandboxMetrics };

export interface SandboxNetwork {
  key: string;
  label: string;
  origin: string;
  /**
   * The .dev.vars secrets of the real network: when they are all empty, `npm run dev` passes these sandbox values
   * (the fakes' client ids and secrets) with `vars`. Empty for networks with no app secrets (Mastodon, Bluesky).
   */
  secrets: Record<string, string>;
  /** Where the Worker finds this network: its API, token and consent origins (all the sandbox's). */
  vars: Record<string, string>;
  /** The network's web origins whose post links move to the sandbox's pages (POST_LINK_ORIGINS). */
  links: string[];
  /** How a person connects it (printed by `npm run dev`). */
  hint: string;
  handle: Handler;
}

/** Network keys in port order: `npm run dev` serves network i on SANDBOX_PORT + i (8801, 8802, …). */
export const NETWORK_KEYS = [
  "x",
  "mastodon",
  "bluesky",
  "linkedin",
  "facebook",
  "instagram",
  "threads",
  "tiktok",
  "youtube",
  "pinterest",
] as const;
export type NetworkKey = (typeof NETWORK_KEYS)[number];

/** The fake OAuth network's consent endpoint (GET with the authorization request). */
const oauthAuthorize =
  (net: FakeNetwork, origin: string) =>
  async (req: Request, decision: "allow" | "deny"): Promise<Response | null> => {
    net.oauth.decision = decision;
    try {
      return await net.routes[origin]!(req);
    } finally {
      net.oauth.decision = "allow";
    }
  };

/** Runs `fn` for its effect and passes. */
const tap =
  (fn: (req: Request) => unknown): MaybeHandler =>
  async (req) => {
    await fn(req);
    return null;
  };

const sandboxToken = (network: string) => () => `sbx-${network}-${crypto.randomUUID()}`;

// ---------------------------------------------------------------- X

function x(origin: string): SandboxNetwork {
  const net = fakeXOAuth({ authOrigin: origin, apiOrigin: origin });
  net.oauth.nextAccessToken = sandboxToken("x");
  const user = net.data.user as { username: string; name: string };
  const fake = new FakeX();
  const seeded = new Set<string>();
  const adopt = async (req: Request) => {
    const token = await tokenOf(req);
    if (token) {
      fake.accessTokens.add(token);
      if (!net.oauth.issued.includes(token)) net.oauth.issued.push(token);
    }
    const url = new URL(req.url);
    if (req.method === "POST" && url.pathname === "/2/oauth2/token") {
      const form = new URLSearchParams(await req.text());
      const refresh = form.get("refresh_token");
      if (form.get("grant_type") === "refresh_token" && refresh) fake.refreshTokens.add(refresh);
    }
    for (const t of fake.tweets.values()) {
      if (seeded.has(t.id)) continue;
      seeded.add(t.id);
      const [impressions, likes, retweets, replies, quotes, bookmarks] = sandboxMetrics(t.text, 6);
      const m = t.public_metrics;
      m.impression_count = impressions!;
      m.like_count = likes!;
      m.retweet_count = retweets!;
      m.reply_count = (m.reply_count ?? 0) + replies!;
      m.quote_count = quotes!;
      m.bookmark_count = bookmarks!;
    }
  };
  return {
    key: "x",
    label: "X",
    origin,
    secrets: { X_CLIENT_ID: net.oauth.spec.clientId, X_CLIENT_SECRET: net.oauth.spec.clientSecret },
    vars: { X_AUTH_URL: origin, X_API_URL: origin },
    links: ["https://x.com"],
    hint: `connect X from the dashboard or POST /api/social-accounts/connect {"platform":"x"}`,
    handle: async (req) =>
      withOrigins(
        await chain(
          consentPage({
            label: "X",
            path: "/i/oauth2/authorize",
            account: `@${user.username} (${user.name})`,
            authorize: oauthAuthorize(net, origin),
          }),
          tap(adopt),
          (r) => net.routes[origin]!(r),
          postPages({
            label: "X",
            author: `@${user.username}`,
            match: (u) => /^\/(?:\w+|i\/web)\/status\/(\d+)$/.exec(u.pathname)?.[1] ?? null,
            find: (id) => {
              const t = fake.tweets.get(id);
              if (!t) return undefined;
              const m = t.public_metrics;
              return {
                id,
                text: t.text,
                created_at: t.created_at,
                media: t.media_ids.length,
                metrics: {
                  Impressions: m.impression_count!,
                  Likes: m.like_count!,
                  Retweets: m.retweet_count!,
                  Replies: m.reply_count!,
                },
              };
            },
          }),
          avatars("X", "#0f1419"),
          (r) => fake.handle(r),
        )(req),
        origin,
      ),
  };
}

// ---------------------------------------------------------------- Mastodon

function mastodon(origin: string): SandboxNetwork {
  const net = fakeMastodonOAuth({ instance: origin });
  // The Worker keeps its app registration per instance in D1; this is the one a fresh sandbox hands out first, so
  // a registration from an earlier run still works.
  net.oauth.spec.clientId = "masto-client-1";
  net.oauth.spec.clientSecret = "masto-secret-1";
  net.oauth.nextAccessToken = sandboxToken("mastodon");
  const fake = new FakeMastodon();
  fake.origin = origin;
  const seeded = new Set<string>();
  const adopt = async (req: Request) => {
    const token = await tokenOf(req);
    if (token) fake.tokens.add(token);
    for (const s of fake.statuses.values()) {
      if (seeded.has(s.id)) continue;
      seeded.add(s.id);
      const [, favourites, reblogs, replies] = sandboxMetrics(s.text, 4);
      s.favourites_count = favourites!;
      s.reblogs_count = reblogs!;
      s.replies_count += replies!;
    }
  };
  return {
    key: "mastodon",
    label: "Mastodon",
    origin,
    secrets: {},
    vars: {},
    links: [],
    hint: `connect Mastodon with the server ${origin}`,
    handle: async (req) =>
      withOrigins(
        await chain(
          consentPage({
            label: "Mastodon",
            path: "/oauth/authorize",
            account: `@${fake.username}@${new URL(origin).host}`,
            authorize: oauthAuthorize(net, origin),
          }),
          tap(adopt),
          (r) => net.routes[origin]!(r),
          postPages({
            label: "Mastodon",
            author: `@${fake.username}`,
            match: (u) => /^\/@\w+\/(\d+)$/.exec(u.pathname)?.[1] ?? null,
            find: (id) => {
              const s = fake.statuses.get(id);
              return (
                s && {
                  id,
                  text: s.text,
                  created_at: s.created_at,
                  media: s.media_ids.length,
                  metrics: { Favourites: s.favourites_count, Reblogs: s.reblogs_count, Replies: s.replies_count },
                }
              );
            },
          }),
          avatars("M", "#6364ff"),
          (r) => fake.handle(r),
        )(req),
        origin,
      ),
  };
}

// ---------------------------------------------------------------- Bluesky

const REAL_PLC = "https://plc.directory";
const REAL_APPVIEW = "https://public.api.bsky.app";

/** A JWT's payload (the fake's access tokens are JWT-shaped), or null. */
function jwtPayload(token: string): { sub?: string; exp?: number } | null {
  try {
    const part = token.split(".")[1] ?? "";
    return JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    return null;
  }
}

/**
 * A Bluesky PDS with the app-password login, the PLC directory and the AppView's getPosts on one origin: the
 * Worker's BLUESKY_PLC_URL and BLUESKY_APPVIEW_URL point here, so identities and metrics this sandbox does not
 * hold (a real account) are passed on to plc.directory and public.api.bsky.app. Any handle and app password
 * log in, as the sandbox's one account.
 */
function bluesky(origin: string): SandboxNetwork {
  const fake = new FakeBluesky();
  fake.pdsEndpoint = origin;
  fake.userHandle = "alice.bsky.sandbox";
  const seeded = new Set<string>();
  const adopt = async (req: Request) => {
    const token = await tokenOf(req);
    if (token?.startsWith("refresh-")) fake.refreshTokens.add(token);
    else if (token && !fake.accessTokens.has(token)) {
      const payload = jwtPayload(token);
      if (payload?.sub === fake.did && payload.exp) fake.accessTokens.set(token, payload.exp);
    }
    const url = new URL(req.url);
    if (url.pathname === "/xrpc/com.atproto.server.createSession" && req.method === "POST") {
      const body = (await req.json().catch(() => ({}))) as { identifier?: string; password?: string };
      fake.identifier = body.identifier ?? "";
      fake.password = body.password ?? "";
      // The sandbox's one account answers as the handle typed (issue 35): createSession's input `identifier` is
      // "Handle or other identifier supported by the server for the authenticating user" and its output carries the
      // account's `handle` (bluesky-social/atproto lexicons/com/atproto/server/createSession.json), so a handle typed
      // at sign-in is the handle the server answers with. An email or a DID keeps the current handle.
      const typed = (body.identifier ?? "").trim().replace(/^@/, "").toLowerCase();
      if (/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(typed) && !typed.includes("@")) fake.userHandle = typed;
    }
    for (const r of fake.records.values()) {
      if (seeded.has(r.uri)) continue;
      seeded.add(r.uri);
      const [, likeCount, repostCount, replyCount, quoteCount] = sandboxMetrics(String(r.value.text ?? ""), 5);
      fake.engagement.set(r.uri, {
        likeCount: likeCount!,
        repostCount: repostCount!,
        replyCount: replyCount!,
        quoteCount: quoteCount!,
      });
    }
  };
  const route: MaybeHandler = async (req) => {
    const url = new URL(req.url);
    const path = decodeURIComponent(url.pathname);
    if (/^\/did:[a-z]+:/.test(path)) {
      if (path.slice(1) !== fake.did) return fetch(`${REAL_PLC}${url.pathname}`);
      return fake.serve(await onOrigin(req, BSKY_PLC));
    }
    if (path === "/xrpc/app.bsky.feed.getPosts") {
      const ours = url.searchParams.getAll("uris").every((u) => u.startsWith(`at://${fake.did}/`));
      if (!ours) return fetch(`${REAL_APPVIEW}${url.pathname}${url.search}`);
      return fake.serve(await onOrigin(req, BSKY_APPVIEW));
    }
    if (path.startsWith("/xrpc/app.bsky.video.")) return fake.serve(await onOrigin(req, BSKY_VIDEO));
    if (path.startsWith("/xrpc/")) return fake.serve(req);
    return null;
  };
  return {
    key: "bluesky",
    label: "Bluesky",
    origin,
    secrets: {},
    vars: { BLUESKY_PLC_URL: origin, BLUESKY_APPVIEW_URL: origin },
    links: ["https://bsky.app"],
    hint: `connect Bluesky with the server ${origin}, any handle and app password`,
    handle: async (req) =>
      withOrigins(
        await chain(
          tap(adopt),
          route,
          postPages({
            label: "Bluesky",
            author: `@${fake.userHandle}`,
            match: (u) => /^\/profile\/[^/]+\/post\/([a-z0-9]+)$/.exec(u.pathname)?.[1] ?? null,
            find: (rkey) => {
              const r = fake.records.get(rkey);
              if (!r) return undefined;
              const e = fake.engagement.get(r.uri);
              return {
                id: r.uri,
                text: String(r.value.text ?? ""),
                created_at: String(r.value.createdAt ?? ""),
                metrics: e && {
                  Likes: e.likeCount,
                  Reposts: e.repostCount,
                  Replies: e.replyCount,
                  Quotes: e.quoteCount,
                },
              };
            },
            realOrigin: "https://bsky.app",
          }),
          avatars("B", "#1185fe"),
        )(req),
        origin,
      ),
  };
}

// ---------------------------------------------------------------- shared by the networks below

/**
 * The Worker's media URLs (`http://127.0.0.1:8787/media/<key>`) as the fakes that pull media by URL expect them:
 * `https://media.test/<key>` (the test suite's MEDIA_URL), raw or form-encoded.
 */
const LOCAL_MEDIA = /https?:\/\/(?:127\.0\.0\.1|localhost)(?::\d+)?\/media\//g;
const LOCAL_MEDIA_ENCODED = /https?%3A%2F%2F(?:127\.0\.0\.1|localhost)(?:%3A\d+)?%2Fmedia%2F/gi;
const asTestMedia = (s: string) =>
  s.replace(LOCAL_MEDIA, "https://media.test/").replace(LOCAL_MEDIA_ENCODED, "https%3A%2F%2Fmedia.test%2F");

/** The test fake registered for `fakeOrigin` (sandbox/stubs/fake-fetch.ts), given the request on its origin. */
const fakeAt =
  (fakeOrigin: string): MaybeHandler =>
  async (req) => {
    const handler = currentFake(fakeOrigin);
    if (!handler) return null;
    const url = new URL(req.url);
    const type = req.headers.get("content-type") ?? "";
    const textual = /json|x-www-form-urlencoded|text\//.test(type);
    const body =
      req.method === "GET" || req.method === "HEAD"
        ? undefined
        : textual
          ? asTestMedia(await req.text())
          : await req.arrayBuffer();
    const headers = new Headers(req.headers);
    headers.delete("content-length");
    return handler(
      new Request(`${fakeOrigin}${url.pathname}${asTestMedia(url.search)}`, { method: req.method, headers, body }),
    );
  };

/** The same request with its bearer token replaced: closure fakes accept only their seed token ("access-token"). */
function asBearer(req: Request, token: string): Request {
  if (!(req.headers.get("authorization") ?? "").startsWith("Bearer ")) return req;
  const headers = new Headers(req.headers);
  headers.set("authorization", `Bearer ${token}`);
  return new Request(req, { headers });
}

/** A refresh-token grant's token (form body), for fakes that accept only refresh tokens they issued. */
async function refreshTokenOf(req: Request): Promise<string | null> {
  if (req.method !== "POST") return null;
  const form = new URLSearchParams(await req.text());
  return form.get("grant_type") === "refresh_token" ? form.get("refresh_token") : null;
}

/** Tokens a fake OAuth network takes as its own from now on (its profile endpoints check them). */
function adoptIssued(net: FakeNetwork, token: string | null): void {
  if (token && !net.oauth.issued.includes(token)) net.oauth.issued.push(token);
  const long = net.data.longTokens as string[] | undefined;
  if (token && long && !long.includes(token)) long.push(token);
}

interface NetworkParts {
  key: string;
  label: string;
  origin: string;
  net: FakeNetwork;
  consentPath: string;
  account: string;
  secrets: Record<string, string>;
  vars: Record<string, string>;
  links: string[];
  /** Runs before each request: tokens adopted, metrics seeded. */
  adopt: (req: Request) => Promise<void>;
  pages: MaybeHandler;
  /** What answers after the fake OAuth network (the publishing fake). */
  rest: MaybeHandler;
  letter: string;
  color: string;
}

/** An OAuth network: consent form, adopt, the fake OAuth network, post pages, avatars, then the publishing fake. */
function oauthNetwork(p: NetworkParts): SandboxNetwork {
  p.net.oauth.nextAccessToken = sandboxToken(p.key);
  return {
    key: p.key,
    label: p.label,
    origin: p.origin,
    secrets: p.secrets,
    vars: p.vars,
    links: p.links,
    hint: `connect ${p.label} from the dashboard or the hosted connect page (the sandbox's consent page)`,
    handle: async (req) =>
      withOrigins(
        await chain(
          consentPage({
            label: p.label,
            path: p.consentPath,
            account: p.account,
            authorize: oauthAuthorize(p.net, p.origin),
          }),
          tap(p.adopt),
          (r) => p.net.routes[p.origin]!(r),
          p.pages,
          avatars(p.letter, p.color),
          p.rest,
        )(req),
        p.origin,
      ),
  };
}

// ---------------------------------------------------------------- LinkedIn (members and pages)

function linkedin(origin: string): SandboxNetwork {
  const net = fakeLinkedInOAuth({ oauthOrigin: origin, apiOrigin: origin });
  const fake = new LinkedInFake();
  const member = net.data.member as { name: string };
  const seeded = new Set<string>();
  return oauthNetwork({
    key: "linkedin",
    label: "LinkedIn",
    origin,
    net,
    consentPath: "/oauth/v2/authorization",
    account: member.name,
    secrets: { LINKEDIN_CLIENT_ID: net.oauth.spec.clientId, LINKEDIN_CLIENT_SECRET: net.oauth.spec.clientSecret },
    vars: { LINKEDIN_OAUTH_URL: origin, LINKEDIN_API_URL: origin },
    links: ["https://www.linkedin.com"],
    adopt: async (req) => {
      const token = await tokenOf(req);
      if (token) fake.validTokens.add(token);
      adoptIssued(net, token);
      const refresh = await refreshTokenOf(req.clone());
      if (refresh) fake.refreshTokens.add(refresh);
      for (const post of fake.posts) {
        if (seeded.has(post.urn)) continue;
        seeded.add(post.urn);
        const [impressionCount, likeCount, commentCount, shareCount, clickCount] = sandboxMetrics(
          String(post.body.commentary ?? ""),
          5,
        );
        fake.shareStatistics.set(post.urn, {
          impressionCount,
          likeCount,
          commentCount,
          shareCount,
          clickCount,
        } as Record<string, number>);
      }
    },
    pages: postPages({
      label: "LinkedIn",
      author: member.name,
      match: (u) => /^\/feed\/update\/(urn:li:[a-zA-Z]+:\d+)\/?$/.exec(decodeURIComponent(u.pathname))?.[1] ?? null,
      find: (urn) => {
        const post = fake.posts.find((x) => x.urn === urn);
        if (!post) return undefined;
        const s = fake.shareStatistics.get(urn) ?? {};
        return {
          id: urn,
          text: String(post.body.commentary ?? ""),
          metrics: { Impressions: s.impressionCount ?? 0, Likes: s.likeCount ?? 0, Comments: s.commentCount ?? 0 },
        };
      },
    }),
    rest: (req) =>
      new URL(req.url).pathname.startsWith("/oauth/")
        ? fakeAt(LINKEDIN_OAUTH_ORIGIN)(req)
        : fakeAt(LINKEDIN_ORIGIN)(req),
    letter: "in",
    color: "#0a66c2",
  });
}

// ---------------------------------------------------------------- Meta: Facebook Pages, Instagram (both logins)

/** Meta's two Graph hosts of the sandbox: facebook.fake (Pages, Instagram via Facebook) and instagram.fake. */
interface MetaGraphs {
  facebook: MetaGraphFake;
  instagram: MetaGraphFake;
}

const metaSeeded = new WeakMap<MetaGraphFake, Set<string>>();

/** Insights for every item a Meta Graph fake published: Page-post, video and Instagram metric names alike. */
function seedMetaInsights(graph: MetaGraphFake): void {
  const seen = metaSeeded.get(graph) ?? new Set<string>();
  metaSeeded.set(graph, seen);
  for (const item of graph.published) {
    if (seen.has(item.id)) continue;
    seen.add(item.id);
    const [views, reach, likes, comments, shares, saved, clicks] = sandboxMetrics(metaText(item.params), 7) as number[];
    const values = {
      post_media_view: views!,
      post_total_media_view_unique: reach!,
      post_clicks: clicks!,
      post_reactions_by_type_total: { like: likes!, love: Math.ceil(likes! / 3) },
      post_video_views: views!,
      total_video_views: views!,
      total_video_views_unique: reach!,
      views: views!,
      reach: reach!,
      likes: likes!,
      comments: comments!,
      shares: shares!,
      saved: saved!,
      total_interactions: likes! + comments! + shares! + saved!,
      replies: comments!,
    };
    if (item.kind === "video" || item.kind === "reel") {
      graph.setVideoInsights(item.id, values, item.kind === "reel" ? "reel" : "video");
    } else {
      (graph as unknown as { insights: Map<string, unknown> }).insights.set(item.id, values);
    }
  }
}

const metaText = (params: Record<string, unknown>): string =>
  String(params.message ?? params.caption ?? params.description ?? params.title ?? "");

/** Instagram post pages (`/p/{shortcode}/`, `/reel/{shortcode}/`) from both Graph fakes. */
function instagramPages(graphs: MetaGraphs): MaybeHandler {
  return postPages({
    label: "Instagram",
    author: "@acme.shop",
    match: (u) => /^\/(?:p|reel|stories\/[^/]+)\/([\w-]+)\/?$/.exec(u.pathname)?.[1] ?? null,
    find: (code) => {
      for (const graph of [graphs.instagram, graphs.facebook]) {
        const objects = (graph as unknown as { objects: Map<string, { kind: string; id: string; shortcode?: string }> })
          .objects;
        const media = [...objects.values()].find((o) => o.kind === "ig_media" && o.shortcode === code);
        const item = media && graph.published.find((p) => p.id === media.id);
        if (item) return { id: item.id, text: metaText(item.params) } satisfies ShownPost;
      }
      return undefined;
    },
  });
}

function facebook(origin: string, graphs: MetaGraphs): SandboxNetwork {
  const net = fakeFacebookOAuth({ authOrigin: origin, graphOrigin: origin });
  const pages = net.data.pages as { id: string; name: string; access_token: string }[];
  const graph = graphs.facebook;
  for (const page of pages) graph.validTokens.add(page.access_token);
  const feedPages = postPages({
    label: "Facebook",
    author: pages.map((p) => p.name).join(" / "),
    match: (u) => {
      if (u.pathname === "/permalink.php") {
        const story = u.searchParams.get("story_fbid");
        const page = u.searchParams.get("id");
        return story && page ? `${page}_${story}` : null;
      }
      const m = /^\/(?:(\d+)\/posts\/(\w+)|(?:\d+\/videos|reel)\/(\d+))\/?$/.exec(u.pathname);
      if (!m) return null;
      return m[3] ?? `${m[1]}_${m[2]}`;
    },
    find: (id) => {
      const item = graph.published.find((p) => p.id === id || p.id.endsWith(`_${id}`));
      return item && { id: item.id, text: metaText(item.params) };
    },
  });
  return oauthNetwork({
    key: "facebook",
    label: "Facebook",
    origin,
    net,
    consentPath: "/v26.0/dialog/oauth",
    account: "Alice Example, admin of the Pages Acme Bakery and Acme Cafe",
    secrets: { FACEBOOK_APP_ID: net.oauth.spec.clientId, FACEBOOK_APP_SECRET: net.oauth.spec.clientSecret },
    vars: { FACEBOOK_AUTH_URL: origin, FACEBOOK_GRAPH_URL: origin },
    links: ["https://www.facebook.com", "https://www.instagram.com"],
    adopt: async (req) => {
      const token = await tokenOf(req);
      if (token) graph.validTokens.add(token);
      seedMetaInsights(graph);
    },
    pages: async (req) => (await feedPages(req)) ?? instagramPages(graphs)(req),
    rest: fakeAt("https://facebook.fake"),
    letter: "f",
    color: "#1877f2",
  });
}

function instagram(origin: string, graphs: MetaGraphs): SandboxNetwork {
  const net = fakeInstagramLoginOAuth({ authOrigin: origin, oauthOrigin: origin, graphOrigin: origin });
  const graph = graphs.instagram;
  const user = net.data.user as { username: string };
  return oauthNetwork({
    key: "instagram",
    label: "Instagram",
    origin,
    net,
    consentPath: "/oauth/authorize",
    account: `@${user.username}`,
    secrets: { INSTAGRAM_APP_ID: net.oauth.spec.clientId, INSTAGRAM_APP_SECRET: net.oauth.spec.clientSecret },
    vars: { INSTAGRAM_AUTH_URL: origin, INSTAGRAM_OAUTH_URL: origin, INSTAGRAM_GRAPH_URL: origin },
    links: ["https://www.instagram.com"],
    adopt: async (req) => {
      const token = await tokenOf(req);
      if (token) graph.validTokens.add(token);
      adoptIssued(net, token);
      seedMetaInsights(graph);
    },
    pages: instagramPages(graphs),
    rest: fakeAt("https://instagram.fake"),
    letter: "Ig",
    color: "#c13584",
  });
}

// ---------------------------------------------------------------- Threads

function threads(origin: string): SandboxNetwork {
  const net = fakeThreadsOAuth({ authOrigin: origin, graphOrigin: origin });
  const fake = new ThreadsFake();
  const user = net.data.user as { username: string };
  fake.username = user.username;
  type Media = { shortcode: string; text: string; at: number };
  const media = (fake as unknown as { media: Map<string, Media> }).media;
  const seeded = new Set<string>();
  return oauthNetwork({
    key: "threads",
    label: "Threads",
    origin,
    net,
    consentPath: "/oauth/authorize",
    account: `@${user.username}`,
    secrets: { THREADS_APP_ID: net.oauth.spec.clientId, THREADS_APP_SECRET: net.oauth.spec.clientSecret },
    vars: { THREADS_AUTH_URL: origin, THREADS_GRAPH_URL: origin },
    links: ["https://www.threads.com"],
    adopt: async (req) => {
      const token = await tokenOf(req);
      if (token) fake.validTokens.add(token);
      adoptIssued(net, token);
      for (const [id, m] of media) {
        if (seeded.has(id)) continue;
        seeded.add(id);
        const [views, likes, replies, reposts, quotes, shares] = sandboxMetrics(m.text, 6) as number[];
        fake.setInsights(id, {
          views: views!,
          likes: likes!,
          replies: replies!,
          reposts: reposts!,
          quotes: quotes!,
          shares: shares!,
        });
      }
    },
    pages: postPages({
      label: "Threads",
      author: `@${user.username}`,
      match: (u) => /^\/@[\w.]+\/post\/([\w-]+)\/?$/.exec(u.pathname)?.[1] ?? null,
      find: (code) => {
        const hit = [...media].find(([, m]) => m.shortcode === code);
        return hit && { id: hit[0], text: hit[1].text, created_at: new Date(hit[1].at).toISOString() };
      },
    }),
    rest: fakeAt("https://threads.fake"),
    letter: "@",
    color: "#000",
  });
}

// ---------------------------------------------------------------- TikTok, YouTube, Pinterest

/** Networks whose fakes accept only their seed tokens: requests reach them with "access-token". */
function seedTokenNetwork(
  p: Omit<NetworkParts, "adopt" | "rest"> & {
    refreshTokens: Set<string>;
    rest: (req: Request) => Promise<Response | null>;
  },
): SandboxNetwork {
  return oauthNetwork({
    ...p,
    adopt: async (req) => {
      adoptIssued(p.net, await tokenOf(req));
      const refresh = await refreshTokenOf(req.clone());
      if (refresh) p.refreshTokens.add(refresh);
    },
    rest: (req) => p.rest(asBearer(req, "access-token")),
  });
}

function tiktok(origin: string): SandboxNetwork {
  const net = fakeTikTokOAuth({ authOrigin: origin, apiOrigin: origin });
  const user = net.data.user as { username: string };
  const fake = fakeTikTok({ creatorUsername: user.username });
  return seedTokenNetwork({
    key: "tiktok",
    label: "TikTok",
    origin,
    net,
    consentPath: "/v2/auth/authorize/",
    account: `@${user.username}`,
    secrets: { TIKTOK_CLIENT_KEY: net.oauth.spec.clientId, TIKTOK_CLIENT_SECRET: net.oauth.spec.clientSecret },
    vars: { TIKTOK_AUTH_URL: origin, TIKTOK_API_URL: origin },
    links: ["https://www.tiktok.com"],
    refreshTokens: fake.refreshTokens,
    pages: postPages({
      label: "TikTok",
      author: `@${user.username}`,
      match: (u) =>
        /^\/@[\w.]+(?:\/(?:video|photo)\/(\d+))?\/?$/.exec(u.pathname)?.[1] ??
        (u.pathname.startsWith("/@") ? "profile" : null),
      find: idOnly,
    }),
    rest: async (req) => fakeAt(TIKTOK_ORIGIN)(req),
    letter: "T",
    color: "#010101",
  });
}

function youtube(origin: string): SandboxNetwork {
  const net = fakeGoogleOAuth({ authOrigin: origin, tokenOrigin: origin, apiOrigin: origin });
  const fake = fakeYouTube();
  const channels = net.data.channels as { title: string }[];
  return seedTokenNetwork({
    key: "youtube",
    label: "YouTube",
    origin,
    net,
    consentPath: "/o/oauth2/v2/auth",
    account: `the Google account with the channels ${channels.map((c) => c.title).join(" and ")}`,
    secrets: { GOOGLE_CLIENT_ID: net.oauth.spec.clientId, GOOGLE_CLIENT_SECRET: net.oauth.spec.clientSecret },
    vars: { GOOGLE_AUTH_URL: origin, GOOGLE_OAUTH_URL: origin, YOUTUBE_API_URL: origin },
    links: ["https://www.youtube.com"],
    refreshTokens: fake.refreshTokens,
    pages: postPages({
      label: "YouTube",
      author: channels[0]!.title,
      match: (u) =>
        /^\/shorts\/([\w-]+)$/.exec(u.pathname)?.[1] ?? (u.pathname === "/watch" ? u.searchParams.get("v") : null),
      find: idOnly,
    }),
    rest: async (req) =>
      new URL(req.url).pathname === "/token" ? fakeAt(GOOGLE_OAUTH_ORIGIN)(req) : fakeAt(YOUTUBE_ORIGIN)(req),
    letter: "▶",
    color: "#ff0000",
  });
}

function pinterest(origin: string): SandboxNetwork {
  const net = fakePinterestOAuth({ authOrigin: origin, apiOrigin: origin });
  const fake = fakePinterest();
  const user = net.data.user as { username: string };
  return seedTokenNetwork({
    key: "pinterest",
    label: "Pinterest",
    origin,
    net,
    consentPath: "/oauth/",
    account: user.username,
    secrets: { PINTEREST_CLIENT_ID: net.oauth.spec.clientId, PINTEREST_CLIENT_SECRET: net.oauth.spec.clientSecret },
    vars: { PINTEREST_AUTH_URL: origin, PINTEREST_API_URL: origin },
    links: ["https://www.pinterest.com"],
    refreshTokens: fake.refreshTokens,
    pages: postPages({
      label: "Pinterest",
      author: user.username,
      match: (u) => /^\/pin\/(\d+)\/?$/.exec(u.pathname)?.[1] ?? null,
      find: idOnly,
    }),
    rest: async (req) => fakeAt(PINTEREST_ORIGIN)(req),
    letter: "P",
    color: "#e60023",
  });
}

/** The sandbox networks on the given origins (one per key). */
export function createNetworks(origins: Partial<Record<NetworkKey, string>>): SandboxNetwork[] {
  const graphs: MetaGraphs = {
    facebook: new MetaGraphFake("https://facebook.fake"),
    instagram: new MetaGraphFake("https://instagram.fake"),
  };
  const factories: Record<NetworkKey, (origin: string) => SandboxNetwork> = {
    x,
    mastodon,
    bluesky,
    linkedin,
    facebook: (o) => facebook(o, graphs),
    instagram: (o) => instagram(o, graphs),
    threads,
    tiktok,
    youtube,
    pinterest,
  };
  return NETWORK_KEYS.filter((k) => origins[k]).map((k) => {
    const network = factories[k](origins[k]!);
    const home = homePage(network.label, network.hint);
    const handle = network.handle;
    return { ...network, handle: async (req: Request) => (await home(req)) ?? handle(req) };
  });
}
