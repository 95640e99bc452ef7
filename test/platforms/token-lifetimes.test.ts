import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BSKY_PDS, FakeBluesky } from "../support/fakes/bluesky";
import { fakeLinkedIn, LINKEDIN_OAUTH_ORIGIN, LINKEDIN_ORIGIN } from "../support/fakes/linkedin";
import { MetaGraphFake } from "../support/fakes/meta";
import { fakePinterest, PINTEREST_CONTINUOUS_REQUIRED } from "../support/fakes/pinterest";
import { ThreadsFake } from "../support/fakes/threads";
import { fakeTikTok, TIKTOK_ORIGIN } from "../support/fakes/tiktok";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../support/fakes/token-clock";
import { FakeX, X_ORIGIN } from "../support/fakes/x";
import { fakeYouTube, GOOGLE_OAUTH_ORIGIN, YOUTUBE_ORIGIN } from "../support/fakes/youtube";

/**
 * The fakes keep each network's token lifetimes (docs/token-refresh.md): a token past its life is refused with the
 * network's own answer (status and envelope), and so is a refresh the network would refuse — an expired long-lived
 * token, a spent (rotated) or expired refresh token. Time is the faked Date, as in the 59-day test.
 */

const stops: (() => void)[] = [];
let t0: number;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  t0 = Math.floor(Date.now() / 1000) * 1000;
  vi.setSystemTime(t0);
});
afterEach(() => {
  vi.useRealTimers();
  for (const stop of stops.splice(0)) stop();
});

const later = (ms: number) => vi.setSystemTime(t0 + ms);

async function answer(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  return { status: res.status, body: (await res.json()) as any };
}

const form = (fields: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
  body: new URLSearchParams(fields).toString(),
});
const bearer = (token: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${token}` },
});

describe("fake token lifetimes", () => {
  it("X: 2-hour access tokens answered 401 once expired; a spent refresh token is refused", async () => {
    const x = new FakeX();
    stops.push(x.install());
    const refresh = (token: string) =>
      answer(`${X_ORIGIN}/2/oauth2/token`, form({ grant_type: "refresh_token", refresh_token: token }));
    const first = await refresh("x-refresh");
    expect(first.status).toBe(200);
    const lookup = () => answer(`${X_ORIGIN}/2/tweets/1`, bearer(first.body.access_token));
    later(2 * HOUR_MS - 1000);
    expect((await lookup()).status).toBe(200);
    later(2 * HOUR_MS);
    expect(await lookup()).toEqual({
      status: 401,
      body: { title: "Unauthorized", detail: "Unauthorized", type: "about:blank", status: 401 },
    });
    expect(await refresh("x-refresh")).toEqual({
      status: 400,
      body: { error: "invalid_request", error_description: "Value passed for the token was invalid." },
    });
    expect((await refresh(first.body.refresh_token)).status).toBe(200);
  });

  it("LinkedIn: 60-day access tokens (401 EXPIRED_ACCESS_TOKEN), a 365-day refresh token that never extends", async () => {
    const li = fakeLinkedIn();
    stops.push(li.uninstall);
    li.clock.issue("refresh-token", 365 * DAY_MS, t0 - 300 * DAY_MS);
    const refresh = () =>
      answer(
        `${LINKEDIN_OAUTH_ORIGIN}/oauth/v2/accessToken`,
        form({
          grant_type: "refresh_token",
          refresh_token: "refresh-token",
          client_id: "li-client",
          client_secret: "li-secret",
        }),
      );
    const first = await refresh();
    expect(first).toEqual({
      status: 200,
      body: {
        access_token: "li-access-1",
        expires_in: 60 * 86_400,
        refresh_token: "refresh-token",
        refresh_token_expires_in: 65 * 86_400,
        scope: "openid,profile,w_member_social",
      },
    });
    later(60 * DAY_MS);
    expect(await answer(`${LINKEDIN_ORIGIN}/rest/posts`, bearer("li-access-1", { method: "POST" }))).toEqual({
      status: 401,
      body: {
        status: 401,
        serviceErrorCode: 65601,
        code: "EXPIRED_ACCESS_TOKEN",
        message: "The token used in the request has expired",
      },
    });
    // Day 60 of 65 left: the new access token ends with the refresh token, not 60 days later.
    expect((await refresh()).body.expires_in).toBe(5 * 86_400);
    later(65 * DAY_MS);
    expect(await refresh()).toEqual({
      status: 400,
      body: {
        error: "invalid_grant",
        error_description: "The provided authorization grant or refresh token is invalid, expired or revoked",
      },
    });
  });

  it("TikTok: 2-hour access tokens (401 access_token_invalid); the refresh token rotates and the old one stops working", async () => {
    const tt = fakeTikTok();
    stops.push(tt.stop);
    const refresh = (token: string) =>
      answer(
        `${TIKTOK_ORIGIN}/v2/oauth/token/`,
        form({ grant_type: "refresh_token", refresh_token: token, client_key: "tt-key", client_secret: "tt-secret" }),
      );
    const first = await refresh("refresh-token");
    expect(first.body).toMatchObject({ expires_in: 7200, refresh_expires_in: 180 * 86_400 });
    const refused = {
      status: 400,
      body: { error: "invalid_grant", error_description: "Refresh token is invalid or expired.", log_id: "LOG" },
    };
    expect(await refresh("refresh-token")).toEqual(refused);
    later(2 * HOUR_MS);
    expect(
      await answer(
        `${TIKTOK_ORIGIN}/v2/post/publish/creator_info/query/`,
        bearer(first.body.access_token, { method: "POST" }),
      ),
    ).toEqual({
      status: 401,
      body: {
        data: {},
        error: {
          code: "access_token_invalid",
          message: "The access token is invalid or not found in the request.",
          log_id: "202401010000000000FAKE",
        },
      },
    });
    later(180 * DAY_MS);
    expect(await refresh(first.body.refresh_token)).toEqual(refused);
  });

  it("YouTube: 1-hour Google access tokens (401 authError); a revoked refresh token gets invalid_grant", async () => {
    const yt = fakeYouTube();
    stops.push(yt.stop);
    const refresh = () =>
      answer(
        `${GOOGLE_OAUTH_ORIGIN}/token`,
        form({
          grant_type: "refresh_token",
          refresh_token: "refresh-token",
          client_id: "g-client",
          client_secret: "g-secret",
        }),
      );
    const first = await refresh();
    expect(first.body.expires_in).toBe(3599);
    later(3599 * 1000);
    expect(
      await answer(`${YOUTUBE_ORIGIN}/youtube/v3/videos?part=statistics&id=v1`, bearer(first.body.access_token)),
    ).toEqual({
      status: 401,
      body: {
        error: {
          code: 401,
          message:
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
          errors: [
            {
              message:
                "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
              domain: "global",
              reason: "authError",
            },
          ],
          status: "UNAUTHENTICATED",
        },
      },
    });
    yt.refreshTokens.delete("refresh-token");
    expect(await refresh()).toEqual({
      status: 400,
      body: { error: "invalid_grant", error_description: "Token has been expired or revoked." },
    });
  });

  it("Pinterest: 30-day access tokens (401 code 2); 60-day rolling refresh tokens; continuous_refresh required", async () => {
    const pin = fakePinterest();
    stops.push(pin.stop);
    pin.clock.issue("refresh-token", 60 * DAY_MS, t0 - 55 * DAY_MS);
    const refresh = (token: string, fields: Record<string, string> = { continuous_refresh: "true" }) =>
      answer(
        "https://pinterest.fake/v5/oauth/token",
        form(
          { grant_type: "refresh_token", refresh_token: token, ...fields },
          { authorization: `Basic ${btoa("pin-client:pin-secret")}` },
        ),
      );
    // An app created before 2025-09-25 must send continuous_refresh=true (the fake's default app).
    expect(await refresh("refresh-token", {})).toEqual({
      status: 400,
      body: { code: 1, message: PINTEREST_CONTINUOUS_REQUIRED },
    });
    const first = await refresh("refresh-token");
    expect(first).toEqual({
      status: 200,
      body: {
        access_token: "pina_fake_1",
        token_type: "bearer",
        expires_in: 30 * 86_400,
        scope: "boards:read boards:write pins:read pins:write user_accounts:read",
        refresh_token: "pinr_fake_1",
        refresh_token_expires_in: 60 * 86_400,
        refresh_token_expires_at: Math.floor(t0 / 1000) + 60 * 86_400,
        response_type: "refresh_token",
      },
    });
    later(30 * DAY_MS);
    expect(await answer("https://pinterest.fake/v5/pins", bearer(first.body.access_token, { method: "POST" }))).toEqual(
      {
        status: 401,
        body: { code: 2, message: "Authentication failed." },
      },
    );
    // The first refresh token's 60 days are over; the one the refresh brought lives 60 days from then.
    const invalid = { status: 400, body: { code: 1, message: "Invalid refresh token." } };
    expect(await refresh("refresh-token")).toEqual(invalid);
    expect((await refresh("pinr_fake_1")).body.refresh_token_expires_in).toBe(60 * 86_400);
    later(30 * DAY_MS + 60 * DAY_MS);
    expect(await refresh("pinr_fake_1")).toEqual(invalid);
  });

  it("Pinterest: an app created on or after 2025-09-25 has continuous refresh without the parameter", async () => {
    const pin = fakePinterest({ createdAfterContinuousCutoff: true });
    stops.push(pin.stop);
    const res = await answer(
      "https://pinterest.fake/v5/oauth/token",
      form(
        { grant_type: "refresh_token", refresh_token: "refresh-token" },
        { authorization: `Basic ${btoa("pin-client:pin-secret")}` },
      ),
    );
    expect(res).toMatchObject({
      status: 200,
      body: { refresh_token: "pinr_fake_1", refresh_token_expires_in: 5_184_000 },
    });
  });

  it("Bluesky: 2-hour access JWTs (400 ExpiredToken); a 90-day refresh JWT, spent by its use", async () => {
    const bsky = new FakeBluesky();
    stops.push(bsky.install());
    const session = bsky.issueSession();
    const refresh = (jwt: string) =>
      answer(`${BSKY_PDS}/xrpc/com.atproto.server.refreshSession`, bearer(jwt, { method: "POST" }));
    const expired = { status: 400, body: { error: "ExpiredToken", message: "Token has expired" } };
    later(2 * HOUR_MS);
    expect(
      await answer(`${BSKY_PDS}/xrpc/com.atproto.repo.uploadBlob`, bearer(session.accessJwt, { method: "POST" })),
    ).toEqual(expired);
    const next = await refresh(session.refreshJwt);
    expect(next.status).toBe(200);
    expect(await refresh(session.refreshJwt)).toEqual(expired);
    later(2 * HOUR_MS + 90 * DAY_MS);
    expect(await refresh(next.body.refreshJwt)).toEqual(expired);
  });

  it("Instagram Login and Threads: 60-day tokens refused (400, code 190) once expired, and no longer refreshable", async () => {
    const ig = new MetaGraphFake("https://instagram.fake");
    const th = new ThreadsFake();
    stops.push(ig.uninstall, th.uninstall);
    for (const [fake, origin, grant] of [
      [ig, "https://instagram.fake", "ig_refresh_token"],
      [th, "https://threads.fake", "th_refresh_token"],
    ] as const) {
      fake.validTokens.add("long-lived");
      fake.longLived.issue("long-lived", t0 - 60 * DAY_MS + MINUTE_MS);
      expect((await answer(`${origin}/v26.0/me`, bearer("long-lived"))).body.error?.code).not.toBe(190);
      later(MINUTE_MS);
      const expired = {
        status: 400,
        body: {
          error: {
            message:
              "Error validating access token: Session has expired on Tuesday, 18-Nov-25 10:00:00 PST. The current time is Wednesday, 19-Nov-25 02:00:00 PST.",
            type: "OAuthException",
            is_transient: false,
            code: 190,
            error_subcode: 463,
            fbtrace_id: expect.any(String),
          },
        },
      };
      expect(await answer(`${origin}/v26.0/me`, bearer("long-lived"))).toEqual(expired);
      expect(await answer(`${origin}/refresh_access_token?grant_type=${grant}&access_token=long-lived`)).toEqual(
        expired,
      );
      vi.setSystemTime(t0);
    }
  });

  it("Facebook Login: a user token dies after its ~60 days; a Page token got with it does not expire", async () => {
    const fb = new MetaGraphFake("https://facebook.fake");
    stops.push(fb.uninstall);
    fb.validTokens.add("user-token");
    fb.validTokens.add("page-token");
    fb.clock.issue("user-token", 60 * DAY_MS);
    later(365 * DAY_MS);
    expect((await answer("https://facebook.fake/v26.0/me", bearer("page-token"))).status).toBe(200);
    expect((await answer("https://facebook.fake/v26.0/me", bearer("user-token"))).body.error.code).toBe(190);
  });
});
