/**
 * Fake OAuth providers for every network (issue 18), answering like the real ones: the consent (authorization)
 * endpoint redirects back with `code` + `state` or the network's denial words; the token endpoint checks client
 * auth, redirect URI, single use, expiry and PKCE S256 and answers with the network's own error envelope; and the
 * profile / pages / organizations / channels / boards endpoints each network's connector reads.
 *
 * Pure `Request → Response` code with no imports, so the workerd tests (through fake-fetch) and the Node
 * Chromium test (through a 127.0.0.1 HTTP server) run the very same fakes. Erasable TypeScript only (Node strips
 * the types itself): no enums, no parameter properties.
 */

export type Handler = (request: Request) => Promise<Response | null>;

interface Grant {
  code: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  challenge: string | null;
  used: boolean;
  expiresAt: number;
}

export interface OAuthSpec {
  name: string;
  clientParam: "client_id" | "client_key";
  clientId: string;
  clientSecret: string;
  /** How the token endpoint expects the client secret. */
  clientAuth: "form" | "basic";
  pkce: "required" | "optional" | "none";
  /**
   * How the network encodes SHA-256(code_verifier) in `code_challenge`: RFC 7636's base64url (default), or hex
   * (TikTok's Login Kit: "You must use hex encoding of SHA256 to generate the code challenge",
   * https://developers.tiktok.com/doc/login-kit-desktop).
   */
  challengeEncoding?: "base64url" | "hex";
  /** The token error for a verifier that does not match the challenge (default invalid_grant). */
  challengeMismatch?: { error: string; description: string };
  scopeSeparator: " " | ",";
  /** The denial the consent page sends back (`error`, `error_description`, extra params). */
  denial: Record<string, string>;
  /** The network's token-endpoint error envelope. */
  tokenError: (status: number, error: string, description: string) => Response;
}

const jsonResponse = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });

async function sha256Challenge(text: string, encoding: "base64url" | "hex" = "base64url"): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  if (encoding === "hex") return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
  let s = "";
  for (const b of digest) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Form fields of a token request: urlencoded body and, for GET (Facebook), the query. */
async function tokenParams(request: Request): Promise<URLSearchParams> {
  const url = new URL(request.url);
  const params = new URLSearchParams(url.search);
  if (request.method === "POST") {
    const body = new URLSearchParams(await request.text());
    for (const [k, v] of body) params.set(k, v);
  }
  return params;
}

export interface TokenContext {
  grant: Grant;
  accessToken: string;
  refreshToken: string;
  scopes: string[];
}

/** The generic authorization-code machinery; each network supplies its spec and its token answer. */
export class FakeOAuth {
  readonly spec: OAuthSpec;
  readonly grants = new Map<string, Grant>();
  /** Every access token issued, in order. */
  readonly issued: string[] = [];
  /** What the consent page does: the user allows or denies. */
  decision: "allow" | "deny" = "allow";
  /** Scopes the user grants (null: everything asked for). */
  grantScopes: string[] | null = null;
  /** Next token request fails with this (status, error, description), once. */
  failNextToken: { status: number; error: string; description: string } | null = null;
  /** Access token values to hand out (default: `<name>-access-<n>`). */
  nextAccessToken: () => string;
  codeLifetimeMs = 10 * 60_000;
  private seq = 0;
  readonly tokenRequests: URLSearchParams[] = [];

  constructor(spec: OAuthSpec) {
    this.spec = spec;
    this.nextAccessToken = () => `${spec.name}-access-${++this.seq}`;
  }

  /** GET consent page: the fake user decides at once and the browser is redirected back. */
  authorize(request: Request): Response {
    const url = new URL(request.url);
    const q = url.searchParams;
    const redirectUri = q.get("redirect_uri");
    const clientId = q.get(this.spec.clientParam);
    if (!redirectUri || clientId !== this.spec.clientId) {
      return new Response(`${this.spec.name}: invalid client or redirect_uri`, { status: 400 });
    }
    const back = new URL(redirectUri);
    const state = q.get("state");
    if (state) back.searchParams.set("state", state);
    const challenge = q.get("code_challenge");
    if (q.get("response_type") !== "code") {
      back.searchParams.set("error", "unsupported_response_type");
      return Response.redirect(back.toString(), 302);
    }
    if (this.spec.pkce === "required" && (!challenge || q.get("code_challenge_method") !== "S256")) {
      back.searchParams.set("error", "invalid_request");
      back.searchParams.set("error_description", "code_challenge with S256 is required");
      return Response.redirect(back.toString(), 302);
    }
    if (this.decision === "deny") {
      for (const [k, v] of Object.entries(this.spec.denial)) back.searchParams.set(k, v);
      return Response.redirect(back.toString(), 302);
    }
    const asked = (q.get("scope") ?? "").split(/[\s,]+/).filter(Boolean);
    const code = `${this.spec.name}-code-${crypto.randomUUID()}`;
    this.grants.set(code, {
      code,
      clientId,
      redirectUri,
      scopes: this.grantScopes ?? asked,
      challenge: this.spec.pkce === "none" ? null : challenge,
      used: false,
      expiresAt: Date.now() + this.codeLifetimeMs,
    });
    back.searchParams.set("code", code);
    return Response.redirect(back.toString(), 302);
  }

  /** The token endpoint's authorization_code grant; null when the request is not one (e.g. a refresh). */
  async exchange(request: Request): Promise<TokenContext | Response | null> {
    const p = await tokenParams(request);
    if (p.get("grant_type") !== "authorization_code" && !(p.get("code") && !p.get("grant_type"))) return null;
    this.tokenRequests.push(p);
    const err = (status: number, error: string, description: string) =>
      this.spec.tokenError(status, error, description);
    if (this.failNextToken) {
      const f = this.failNextToken;
      this.failNextToken = null;
      return err(f.status, f.error, f.description);
    }
    let clientId = p.get(this.spec.clientParam);
    let secret = p.get("client_secret");
    if (this.spec.clientAuth === "basic") {
      const auth = request.headers.get("authorization") ?? "";
      const decoded = auth.startsWith("Basic ") ? atob(auth.slice(6)) : "";
      const i = decoded.indexOf(":");
      clientId = i > 0 ? decoded.slice(0, i) : null;
      secret = i > 0 ? decoded.slice(i + 1) : null;
    }
    if (clientId !== this.spec.clientId || secret !== this.spec.clientSecret) {
      return err(401, "invalid_client", "Client authentication failed.");
    }
    const grant = this.grants.get(p.get("code") ?? "");
    if (!grant || grant.used || grant.expiresAt < Date.now()) {
      if (grant) grant.used = true;
      return err(400, "invalid_grant", "The authorization code is invalid, expired or was already used.");
    }
    grant.used = true;
    if (p.get("redirect_uri") !== grant.redirectUri) {
      return err(400, "invalid_grant", "The redirect_uri does not match the authorization request.");
    }
    if (grant.challenge) {
      const verifier = p.get("code_verifier");
      if (!verifier || (await sha256Challenge(verifier, this.spec.challengeEncoding)) !== grant.challenge) {
        const m = this.spec.challengeMismatch ?? {
          error: "invalid_grant",
          description: "Code verifier or code challenge is invalid.",
        };
        return err(400, m.error, m.description);
      }
    } else if (this.spec.pkce === "required") {
      return err(400, "invalid_request", "Missing code_verifier.");
    }
    const accessToken = this.nextAccessToken();
    this.issued.push(accessToken);
    return {
      grant,
      accessToken,
      refreshToken: `${this.spec.name}-refresh-${this.issued.length}`,
      scopes: grant.scopes,
    };
  }

  scopeString(scopes: string[]): string {
    return scopes.join(this.spec.scopeSeparator);
  }
}

const bearer = (request: Request) => {
  const auth = request.headers.get("authorization") ?? "";
  return auth.startsWith("Bearer ") ? auth.slice(7) : new URL(request.url).searchParams.get("access_token");
};

const path = (request: Request) => new URL(request.url).pathname;

/** RFC 6749 `{error, error_description}` (X, LinkedIn, Google, Mastodon; TikTok adds log_id). */
const rfcError =
  (extra: Record<string, string> = {}) =>
  (status: number, error: string, description: string) =>
    jsonResponse({ error, error_description: description, ...extra }, status);

let trace = 0;
/** Meta Graph `{error:{message,type,code,error_subcode,fbtrace_id}}`. */
const graphError = (status: number, _error: string, description: string, code = 100, subcode?: number) =>
  jsonResponse(
    {
      error: {
        message: description,
        type: "OAuthException",
        code,
        ...(subcode ? { error_subcode: subcode } : {}),
        fbtrace_id: `AoauthFake${++trace}`,
      },
    },
    status,
  );

export interface FakeNetwork {
  oauth: FakeOAuth;
  /** origin → handler; a null answer means "not an OAuth path": hand it to the publishing fake. */
  routes: Record<string, Handler>;
  /** Tokens this login can use (per network state: pages, orgs, channels, boards). */
  data: Record<string, unknown>;
}

const unauthorized = (body: unknown = { error: "invalid_token" }) => jsonResponse(body, 401);

/**
 * One network's fake as a table: the consent page and the token endpoint (the same machinery everywhere, see
 * FakeOAuth) plus the network's own API paths (profile, pages, organizations, channels, boards, app registration).
 */
interface NetworkTable {
  spec: OAuthSpec;
  consent: { origin: string; path: string };
  token: {
    origin: string;
    path: string;
    /** Only this method reaches the token endpoint (Facebook's Graph takes any). */
    method?: "POST";
    /** The token answer of a granted code. */
    answer: (r: TokenContext, oauth: FakeOAuth) => unknown;
    /** The answer to any other grant on the same path (a long-lived exchange, a refresh); null: not ours. */
    otherGrant?: (request: Request) => Promise<Response | null> | Response | null;
    /** A network's own refusal of a token request, checked before the code is looked at (null: go on). */
    refuse?: (request: Request) => Promise<Response | null>;
  };
  /** origin → the network's API paths on it (given the login, to tell its tokens); null: not ours. */
  api?: Record<string, (request: Request, oauth: FakeOAuth) => Promise<Response | null>>;
  data: Record<string, unknown>;
}

function fakeNetwork(t: NetworkTable): FakeNetwork {
  const oauth = new FakeOAuth(t.spec);
  const origins = new Set([t.consent.origin, t.token.origin, ...Object.keys(t.api ?? {})]);
  const routes: Record<string, Handler> = {};
  for (const origin of origins) {
    routes[origin] = async (req) => {
      const p = path(req);
      if (origin === t.consent.origin && req.method === "GET" && p === t.consent.path) return oauth.authorize(req);
      if (origin === t.token.origin && p === t.token.path && (!t.token.method || req.method === t.token.method)) {
        const refused = await t.token.refuse?.(req.clone());
        if (refused) return refused;
        const r = await oauth.exchange(req.clone());
        if (r === null) return t.token.otherGrant ? t.token.otherGrant(req) : null;
        if (r instanceof Response) return r;
        return jsonResponse(t.token.answer(r, oauth));
      }
      return (await t.api?.[origin]?.(req, oauth)) ?? null;
    };
  }
  return { oauth, routes, data: t.data };
}

/** The bearer token of a request, when the login issued it. */
const issuedBearer = (oauth: FakeOAuth, req: Request) => oauth.issued.includes(bearer(req) ?? "");

/**
 * The RFC 6749 token answer most networks give: the issued access token, its refresh token (when `refreshed` says
 * the grant has one), the granted scopes in the network's own separator, and the network's own fields (lifetimes,
 * token_type spelling, ids), computed per answer.
 */
const rfcTokenAnswer =
  (own: () => Record<string, unknown>, refreshed: (scopes: string[]) => boolean = () => true) =>
  (r: TokenContext, oauth: FakeOAuth) => ({
    access_token: r.accessToken,
    ...(refreshed(r.scopes) ? { refresh_token: r.refreshToken } : {}),
    scope: oauth.scopeString(r.scopes),
    ...own(),
  });

/**
 * The Graph side of Instagram Login and Threads: the short-lived → long-lived exchange
 * (`GET {graph}/access_token?grant_type=…`, the app secret and a short-lived token this login issued, or Graph's
 * code 190) and `/me`, which takes only a long-lived token.
 */
function longLivedGraph(o: { grantType: string; clientSecret: string; mePath: string; me: unknown }) {
  const shortTokens = new Set<string>();
  const longTokens: string[] = [];
  const invalid = () => graphError(400, "", "Invalid OAuth access token.", 190);
  const handler: Handler = async (req) => {
    const p = path(req);
    if (p === "/access_token") {
      const q = new URL(req.url).searchParams;
      const short = q.get("access_token") ?? "";
      if (q.get("grant_type") !== o.grantType || q.get("client_secret") !== o.clientSecret || !shortTokens.has(short))
        return invalid();
      const long = `${short}-long`;
      longTokens.push(long);
      return jsonResponse({ access_token: long, token_type: "bearer", expires_in: 5_183_944 });
    }
    if (p !== o.mePath) return null;
    return longTokens.includes(bearer(req) ?? "") ? jsonResponse(o.me) : invalid();
  };
  return {
    /** A token answer that also remembers the short-lived token it hands out, for the exchange. */
    remember:
      (answer: (r: TokenContext) => unknown) =>
      (r: TokenContext): unknown => {
        shortTokens.add(r.accessToken);
        return answer(r);
      },
    /** The network table's Graph routes and data (`user`, and the long-lived tokens issued). */
    parts: (graphOrigin: string, user: unknown) => ({
      api: { [graphOrigin]: handler },
      data: { user, longTokens },
    }),
  };
}

// ---------------------------------------------------------------- X

export function fakeXOAuth(o: { authOrigin: string; apiOrigin: string }): FakeNetwork {
  const user = {
    id: "2244994945",
    name: "Alice Example",
    username: "alice_x",
    profile_image_url: "https://pbs.twimg.fake/alice.jpg",
  };
  return fakeNetwork({
    spec: {
      name: "x",
      clientParam: "client_id",
      clientId: "x-client",
      clientSecret: "x-secret",
      clientAuth: "basic",
      pkce: "required",
      scopeSeparator: " ",
      denial: { error: "access_denied" },
      tokenError: rfcError(),
    },
    consent: { origin: o.authOrigin, path: "/i/oauth2/authorize" },
    token: {
      origin: o.apiOrigin,
      path: "/2/oauth2/token",
      method: "POST",
      answer: rfcTokenAnswer(
        () => ({ token_type: "bearer", expires_in: 7200 }),
        (scopes) => scopes.includes("offline.access"),
      ),
    },
    api: {
      [o.apiOrigin]: async (req, oauth) => {
        if (req.method !== "GET" || path(req) !== "/2/users/me") return null;
        if (!issuedBearer(oauth, req))
          return jsonResponse({ title: "Unauthorized", type: "about:blank", status: 401, detail: "Unauthorized" }, 401);
        return jsonResponse({ data: user });
      },
    },
    data: { user },
  });
}

// ---------------------------------------------------------------- LinkedIn

export function fakeLinkedInOAuth(o: { oauthOrigin: string; apiOrigin: string }): FakeNetwork {
  const member = {
    sub: "782bbtaQ",
    name: "Alice Example",
    given_name: "Alice",
    family_name: "Example",
    picture: "https://media.licdn.fake/alice.jpg",
    email: "alice@example.com",
    email_verified: true,
    locale: { country: "US", language: "en" },
  };
  const organizations = [
    { id: 2414183, localizedName: "Acme Corp", vanityName: "acme" },
    { id: 5515715, localizedName: "Acme Labs", vanityName: "acme-labs" },
  ];
  const liError = (status: number, code: string, message: string) =>
    jsonResponse({ status, serviceErrorCode: 65600, code, message }, status);
  return fakeNetwork({
    spec: {
      name: "linkedin",
      clientParam: "client_id",
      clientId: "li-client",
      clientSecret: "li-secret",
      clientAuth: "form",
      pkce: "none",
      scopeSeparator: ",",
      denial: { error: "user_cancelled_authorize", error_description: "The user cancelled the authorization" },
      tokenError: rfcError(),
    },
    consent: { origin: o.oauthOrigin, path: "/oauth/v2/authorization" },
    token: {
      origin: o.oauthOrigin,
      path: "/oauth/v2/accessToken",
      method: "POST",
      answer: rfcTokenAnswer(() => ({ expires_in: 5_183_999, refresh_token_expires_in: 31_535_999 })),
    },
    api: {
      [o.apiOrigin]: async (req, oauth) => {
        const p = path(req);
        const isOurs = p === "/v2/userinfo" || p === "/rest/organizationAcls" || p.startsWith("/rest/organizations/");
        if (!isOurs) return null;
        if (!issuedBearer(oauth, req)) return liError(401, "INVALID_ACCESS_TOKEN", "Invalid access token");
        if (p === "/v2/userinfo") return jsonResponse(member);
        if (!req.headers.get("linkedin-version") || req.headers.get("x-restli-protocol-version") !== "2.0.0") {
          return liError(
            400,
            "VERSION_MISSING",
            "A version must be present. Please specify a version by adding the LinkedIn-Version header.",
          );
        }
        if (p === "/rest/organizationAcls") {
          const q = new URL(req.url).searchParams;
          if (q.get("q") !== "roleAssignee") return liError(400, "ILLEGAL_ARGUMENT", "Invalid finder");
          return jsonResponse({
            paging: { count: 10, start: 0, links: [] },
            elements: organizations.map((org) => ({
              roleAssignee: `urn:li:person:${member.sub}`,
              state: "APPROVED",
              role: "ADMINISTRATOR",
              organization: `urn:li:organization:${org.id}`,
            })),
          });
        }
        const id = Number(p.split("/").pop());
        const org = organizations.find((x) => x.id === id);
        return org ? jsonResponse(org) : liError(404, "NOT_FOUND", "Organization not found");
      },
    },
    data: { member, organizations },
  });
}

// ---------------------------------------------------------------- Facebook Login (Pages, Instagram via Facebook)

export interface FakePage {
  id: string;
  name: string;
  access_token: string;
  tasks: string[];
  instagram_business_account?: { id: string; username: string; name: string; profile_picture_url: string };
}

export function fakeFacebookOAuth(o: { authOrigin: string; graphOrigin: string; version?: string }): FakeNetwork {
  const v = o.version ?? "v26.0";
  const longLived = new Map<string, string[]>();
  const pages: FakePage[] = [
    {
      id: "101",
      name: "Acme Bakery",
      access_token: "page-token-101",
      tasks: ["ADVERTISE", "ANALYZE", "CREATE_CONTENT", "MODERATE", "MANAGE"],
      instagram_business_account: {
        id: "17841400000000101",
        username: "acme.bakery",
        name: "Acme Bakery",
        profile_picture_url: "https://scontent.fake/101.jpg",
      },
    },
    {
      id: "102",
      name: "Acme Cafe",
      access_token: "page-token-102",
      tasks: ["CREATE_CONTENT", "MODERATE"],
      instagram_business_account: {
        id: "17841400000000102",
        username: "acme.cafe",
        name: "Acme Cafe",
        profile_picture_url: "https://scontent.fake/102.jpg",
      },
    },
    { id: "103", name: "Acme Archive", access_token: "page-token-103", tasks: ["ANALYZE"] },
  ];
  const invalidToken = () => graphError(400, "", "Invalid OAuth access token - Cannot parse access token", 190);
  return fakeNetwork({
    spec: {
      name: "facebook",
      clientParam: "client_id",
      clientId: "fb-app",
      clientSecret: "fb-secret",
      clientAuth: "form",
      pkce: "optional",
      scopeSeparator: ",",
      denial: {
        error: "access_denied",
        error_code: "200",
        error_description: "Permissions error",
        error_reason: "user_denied",
      },
      tokenError: (status, error, description) =>
        graphError(status, error, description, 100, error === "invalid_grant" ? 36009 : undefined),
    },
    consent: { origin: o.authOrigin, path: `/${v}/dialog/oauth` },
    token: {
      origin: o.graphOrigin,
      path: `/${v}/oauth/access_token`,
      answer: (r) => {
        longLived.set(r.accessToken, r.scopes);
        return { access_token: r.accessToken, token_type: "bearer", expires_in: 5_183_944 };
      },
      // Short-lived user token → long-lived (`fb_exchange_token`): app id and secret in the query.
      otherGrant: (req) => {
        const q = new URL(req.url).searchParams;
        if (q.get("grant_type") !== "fb_exchange_token") return graphError(400, "", "Missing authorization code", 100);
        const short = q.get("fb_exchange_token") ?? "";
        if (q.get("client_id") !== "fb-app" || q.get("client_secret") !== "fb-secret")
          return graphError(400, "", "Error validating client secret.", 1);
        const scopes = longLived.get(short);
        if (!scopes) return invalidToken();
        const long = `${short}-long`;
        longLived.set(long, scopes);
        return jsonResponse({ access_token: long, token_type: "bearer", expires_in: 5_183_944 });
      },
    },
    api: {
      [o.graphOrigin]: async (req) => {
        const p = path(req);
        if (p !== `/${v}/me/permissions` && p !== `/${v}/me/accounts`) return null;
        const scopes = longLived.get(bearer(req) ?? "");
        if (!scopes) return invalidToken();
        if (p.endsWith("/permissions")) {
          return jsonResponse({ data: scopes.map((permission) => ({ permission, status: "granted" })) });
        }
        const fields = new URL(req.url).searchParams.get("fields") ?? "";
        return jsonResponse({
          data: pages.map((page) => ({
            id: page.id,
            name: page.name,
            access_token: page.access_token,
            tasks: page.tasks,
            picture: { data: { url: `https://scontent.fake/page-${page.id}.jpg` } },
            ...(fields.includes("instagram_business_account") && page.instagram_business_account
              ? { instagram_business_account: page.instagram_business_account }
              : {}),
          })),
          paging: { cursors: { before: "QVFIUmZA", after: "QVFIUmZB" } },
        });
      },
    },
    data: { pages },
  });
}

// ---------------------------------------------------------------- Instagram API with Instagram Login

export function fakeInstagramLoginOAuth(o: {
  authOrigin: string;
  oauthOrigin: string;
  graphOrigin: string;
}): FakeNetwork {
  const user = {
    user_id: "17841405822304914",
    username: "acme.shop",
    name: "Acme Shop",
    profile_picture_url: "https://scontent.fake/ig.jpg",
  };
  const graph = longLivedGraph({
    grantType: "ig_exchange_token",
    clientSecret: "ig-secret",
    mePath: "/v26.0/me",
    me: { ...user, id: "9000000000001" },
  });
  return fakeNetwork({
    spec: {
      name: "instagram",
      clientParam: "client_id",
      clientId: "ig-app",
      clientSecret: "ig-secret",
      clientAuth: "form",
      pkce: "none",
      scopeSeparator: ",",
      denial: {
        error: "access_denied",
        error_reason: "user_denied",
        error_description: "The user denied your request.",
      },
      tokenError: (status, _error, description) =>
        jsonResponse({ error_type: "OAuthException", code: status, error_message: description }, status),
    },
    consent: { origin: o.authOrigin, path: "/oauth/authorize" },
    token: {
      origin: o.oauthOrigin,
      path: "/oauth/access_token",
      method: "POST",
      answer: graph.remember((r) => ({
        data: [{ access_token: r.accessToken, user_id: user.user_id, permissions: r.scopes.join(",") }],
      })),
      otherGrant: () =>
        jsonResponse({ error_type: "OAuthException", code: 400, error_message: "Invalid grant_type" }, 400),
    },
    ...graph.parts(o.graphOrigin, user),
  });
}

// ---------------------------------------------------------------- Threads

export function fakeThreadsOAuth(o: { authOrigin: string; graphOrigin: string }): FakeNetwork {
  const user = {
    id: "25000000000000001",
    username: "acme.threads",
    name: "Acme Threads",
    threads_profile_picture_url: "https://scontent.fake/th.jpg",
  };
  const graph = longLivedGraph({
    grantType: "th_exchange_token",
    clientSecret: "th-secret",
    mePath: "/v1.0/me",
    me: user,
  });
  return fakeNetwork({
    spec: {
      name: "threads",
      clientParam: "client_id",
      clientId: "th-app",
      clientSecret: "th-secret",
      clientAuth: "form",
      pkce: "none",
      scopeSeparator: ",",
      denial: { error: "access_denied", error_reason: "user_denied", error_description: "Permissions error" },
      tokenError: (status, _e, description) => graphError(status, "", description, 1),
    },
    consent: { origin: o.authOrigin, path: "/oauth/authorize" },
    token: {
      origin: o.graphOrigin,
      path: "/oauth/access_token",
      method: "POST",
      answer: graph.remember((r) => ({ access_token: r.accessToken, user_id: Number(user.id) })),
    },
    ...graph.parts(o.graphOrigin, user),
  });
}

// ---------------------------------------------------------------- TikTok

export function fakeTikTokOAuth(o: { authOrigin: string; apiOrigin: string }): FakeNetwork {
  const user = {
    open_id: "-000OhfsRdYD7Xbk4D1QXyYE1ldXZsNKTwbu",
    union_id: "c9c60f44-a68e-4f5d-84dd-ce22faeb0ba1",
    display_name: "Acme on TikTok",
    username: "acme.tt",
    avatar_url: "https://p16.tiktokcdn.fake/a.jpeg",
  };
  return fakeNetwork({
    spec: {
      name: "tiktok",
      clientParam: "client_key",
      clientId: "tt-key",
      clientSecret: "tt-secret",
      clientAuth: "form",
      pkce: "required",
      // "You must use hex encoding of SHA256 to generate the code challenge" (Login Kit, "Code Verifier and Code
      // Challenge", https://developers.tiktok.com/doc/login-kit-desktop): the token exchange compares
      // hex(SHA256(code_verifier)) with the challenge, so a base64url challenge (RFC 7636's) never matches and is
      // refused with the error developers report for it: `invalid_request`, "Code verifier or code challenge is
      // invalid." (log_id added by rfcError).
      challengeEncoding: "hex",
      challengeMismatch: { error: "invalid_request", description: "Code verifier or code challenge is invalid." },
      scopeSeparator: ",",
      denial: { error: "access_denied", error_description: "The user denied the request." },
      tokenError: rfcError({ log_id: "20261124000000FAKE" }),
    },
    consent: { origin: o.authOrigin, path: "/v2/auth/authorize/" },
    token: {
      origin: o.apiOrigin,
      path: "/v2/oauth/token/",
      method: "POST",
      answer: rfcTokenAnswer(() => ({
        expires_in: 7_200, // TikTok "Manage OAuth Access Tokens" (Nov 2026): 2 hours
        open_id: user.open_id,
        refresh_expires_in: 15_552_000, // 180 days
        token_type: "Bearer",
      })),
    },
    api: {
      [o.apiOrigin]: async (req, oauth) => {
        if (req.method !== "GET" || path(req) !== "/v2/user/info/") return null;
        if (!issuedBearer(oauth, req)) {
          return jsonResponse(
            {
              data: {},
              error: {
                code: "access_token_invalid",
                message: "The access token is invalid or not found in the request.",
                log_id: "20261124FAKE",
              },
            },
            401,
          );
        }
        return jsonResponse({ data: { user }, error: { code: "ok", message: "", log_id: "20261124FAKE" } });
      },
    },
    data: { user },
  });
}

// ---------------------------------------------------------------- Google / YouTube

export function fakeGoogleOAuth(o: { authOrigin: string; tokenOrigin: string; apiOrigin: string }): FakeNetwork {
  const channels = [
    { id: "UC_x5XG1OV2P6uZZ5FSM9Ttw", title: "Acme Videos", customUrl: "@acmevideos" },
    { id: "UCbrand0000000000000002", title: "Acme Brand", customUrl: "@acmebrand" },
  ];
  return fakeNetwork({
    spec: {
      name: "google",
      clientParam: "client_id",
      clientId: "g-client",
      clientSecret: "g-secret",
      clientAuth: "form",
      pkce: "optional",
      scopeSeparator: " ",
      denial: { error: "access_denied" },
      tokenError: rfcError(),
    },
    consent: { origin: o.authOrigin, path: "/o/oauth2/v2/auth" },
    token: {
      origin: o.tokenOrigin,
      path: "/token",
      method: "POST",
      answer: rfcTokenAnswer(() => ({ expires_in: 3599, token_type: "Bearer" })),
    },
    api: {
      [o.apiOrigin]: async (req, oauth) => {
        if (path(req) !== "/youtube/v3/channels") return null;
        if (!issuedBearer(oauth, req)) {
          return jsonResponse(
            {
              error: {
                code: 401,
                message: "Request had invalid authentication credentials.",
                errors: [{ message: "Invalid Credentials", domain: "global", reason: "authError" }],
                status: "UNAUTHENTICATED",
              },
            },
            401,
          );
        }
        if (new URL(req.url).searchParams.get("mine") !== "true")
          return jsonResponse({ kind: "youtube#channelListResponse", items: [] });
        return jsonResponse({
          kind: "youtube#channelListResponse",
          pageInfo: { totalResults: channels.length, resultsPerPage: 5 },
          items: channels.map((c) => ({
            kind: "youtube#channel",
            id: c.id,
            snippet: {
              title: c.title,
              description: "",
              customUrl: c.customUrl,
              thumbnails: { default: { url: `https://yt3.ggpht.fake/${c.id}.jpg`, width: 88, height: 88 } },
            },
          })),
        });
      },
    },
    data: { channels },
  });
}

// ---------------------------------------------------------------- Pinterest

/** The 400 the fakes answer to a code exchange or refresh of a pre-2025-09-25 app without continuous_refresh. */
export const PINTEREST_CONTINUOUS_REQUIRED =
  "Legacy refresh tokens are no longer supported: send continuous_refresh=true.";

export function fakePinterestOAuth(o: { authOrigin: string; apiOrigin: string }): FakeNetwork {
  const user = {
    account_type: "BUSINESS",
    id: "549755885175",
    username: "acmepins",
    business_name: "Acme Pins",
    profile_image: "https://i.pinimg.fake/acme.jpg",
  };
  const boards = [
    { id: "549755885175", name: "Recipes", privacy: "PUBLIC" },
    { id: "549755885176", name: "Shop", privacy: "PUBLIC" },
  ];
  return fakeNetwork({
    spec: {
      name: "pinterest",
      clientParam: "client_id",
      clientId: "pin-client",
      clientSecret: "pin-secret",
      clientAuth: "basic",
      pkce: "none",
      scopeSeparator: ",",
      denial: { error: "access_denied" },
      tokenError: (status, _e, description) =>
        jsonResponse({ code: status === 401 ? 2 : 1, message: description }, status),
    },
    consent: { origin: o.authOrigin, path: "/oauth/" },
    token: {
      origin: o.apiOrigin,
      path: "/v5/oauth/token",
      method: "POST",
      // Continuous refresh tokens (60 days, "Pinterest no longer supports the legacy refresh token (365-day
      // expiration, hard limit)"), and apps created before 2025-09-25 must send continuous_refresh=true
      // (developers.pinterest.com/docs/getting-started/scopes/, checked 2026-12-07; see fakes/pinterest.ts).
      answer: rfcTokenAnswer(() => ({
        response_type: "authorization_code",
        token_type: "bearer",
        expires_in: 2_592_000,
        refresh_token_expires_in: 5_184_000,
        refresh_token_expires_at: Math.floor(Date.now() / 1000) + 5_184_000,
      })),
      refuse: async (req) => {
        const form = await req.formData();
        if (form.get("grant_type") !== "authorization_code" || form.get("continuous_refresh") === "true") return null;
        return jsonResponse({ code: 1, message: PINTEREST_CONTINUOUS_REQUIRED }, 400);
      },
    },
    api: {
      [o.apiOrigin]: async (req, oauth) => {
        const p = path(req);
        if (req.method !== "GET" || (p !== "/v5/user_account" && p !== "/v5/boards")) return null;
        if (!issuedBearer(oauth, req)) return jsonResponse({ code: 2, message: "Authentication failed." }, 401);
        if (p === "/v5/user_account") return jsonResponse(user);
        return jsonResponse({ items: boards, bookmark: null });
      },
    },
    data: { user, boards },
  });
}

// ---------------------------------------------------------------- Mastodon

export function fakeMastodonOAuth(o: { instance: string }): FakeNetwork {
  const apps: { client_id: string; client_secret: string; redirect_uri: string }[] = [];
  return fakeNetwork({
    spec: {
      name: "mastodon",
      clientParam: "client_id",
      clientId: "",
      clientSecret: "",
      clientAuth: "form",
      pkce: "optional",
      scopeSeparator: " ",
      denial: {
        error: "access_denied",
        error_description: "The resource owner or authorization server denied the request.",
      },
      tokenError: rfcError(),
    },
    consent: { origin: o.instance, path: "/oauth/authorize" },
    token: {
      origin: o.instance,
      path: "/oauth/token",
      method: "POST",
      // Mastodon issues no refresh token: its tokens do not expire.
      answer: rfcTokenAnswer(
        () => ({ token_type: "Bearer", created_at: Math.floor(Date.now() / 1000) }),
        () => false,
      ),
    },
    api: {
      [o.instance]: async (req, oauth) => {
        if (req.method !== "POST" || path(req) !== "/api/v1/apps") return null;
        const body = (await req.json().catch(() => ({}))) as Record<string, string>;
        if (!body.client_name || !body.redirect_uris) {
          return jsonResponse(
            { error: "Validation failed: Application name can't be blank, Redirect URI can't be blank" },
            422,
          );
        }
        const app = {
          client_id: `masto-client-${apps.length + 1}`,
          client_secret: `masto-secret-${apps.length + 1}`,
          redirect_uri: body.redirect_uris,
        };
        apps.push(app);
        // One fake app at a time is enough for the tests: the latest registration is the valid client.
        oauth.spec.clientId = app.client_id;
        oauth.spec.clientSecret = app.client_secret;
        return jsonResponse({
          id: String(apps.length),
          name: body.client_name,
          website: body.website ?? null,
          scopes: (body.scopes ?? "read").split(" "),
          redirect_uri: app.redirect_uri,
          redirect_uris: [app.redirect_uri],
          client_id: app.client_id,
          client_secret: app.client_secret,
          vapid_key: "BFakeVapidKey",
        });
      },
    },
    data: { apps },
  });
}

export { jsonResponse, unauthorized };
