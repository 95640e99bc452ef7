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
import { FakeMastodon } from "../test/support/fakes/mastodon";
import { FakeX } from "../test/support/fakes/x";
import { type FakeNetwork, fakeMastodonOAuth, fakeXOAuth } from "../test/support/oauth/fake-oauth";
import {
  avatars,
  chain,
  consentPage,
  type Handler,
  type MaybeHandler,
  onOrigin,
  postPages,
  sandboxMetrics,
  tokenOf,
  withOrigins,
} from "./kit";

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
export const NETWORK_KEYS = ["x", "mastodon", "bluesky"] as const;
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
            match: (p) => /^\/(?:\w+|i\/web)\/status\/(\d+)$/.exec(p)?.[1] ?? null,
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
            match: (p) => /^\/@\w+\/(\d+)$/.exec(p)?.[1] ?? null,
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
            match: (p) => /^\/profile\/[^/]+\/post\/([a-z0-9]+)$/.exec(p)?.[1] ?? null,
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

const FACTORIES: Record<NetworkKey, (origin: string) => SandboxNetwork> = { x, mastodon, bluesky };

/** The sandbox networks on the given origins (one per key). */
export function createNetworks(origins: Partial<Record<NetworkKey, string>>): SandboxNetwork[] {
  return NETWORK_KEYS.filter((k) => origins[k]).map((k) => FACTORIES[k](origins[k]!));
}
