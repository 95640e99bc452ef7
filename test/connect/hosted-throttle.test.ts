// Issue 25 (7): the hosted pages' flow starts and Bluesky app-password attempts are counted per client IP (IPv6 per
// /64) and per connect link, in the UploadGuard Durable Object's one-minute windows; past a window the answer is a
// 429 page with Retry-After, before anything else runs.
import { afterEach, describe, expect, it } from "vitest";
import { BSKY_PDS, FakeBluesky } from "../support/fakes/bluesky";
import { FakeX } from "../support/fakes/x";
import { type ApiResponse, createTestWorkspace, type TestWorkspace } from "../support/harness";
import { browse, clearCookies, formOf, postForm } from "../support/oauth/browser";
import { fakeXOAuth } from "../support/oauth/fake-oauth";
import { installOAuthNetwork } from "../support/oauth/install";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const off of cleanups.splice(0).reverse()) off();
  clearCookies();
});

const STARTS = 20; // CONNECT_STARTS_PER_MINUTE
const TRIES = 5; // CONNECT_PASSWORD_TRIES_PER_MINUTE
const minute = () => Math.floor(Date.now() / 60_000);

async function link(ws: TestWorkspace) {
  const res = await ws.api("POST", "/api/connect-links", {});
  const path = new URL(res.body.url).pathname;
  return { path, token: path.split("/").pop()!, csrf: formOf((await browse("GET", path)).text).csrf };
}

/**
 * Sends `send()` until the first refusal (at most 2 × limit + 1 times). Within one window the first `limit` pass
 * and the next is refused; when a window boundary falls in between, the count restarts once, so the refusal comes
 * no later than 2 × limit + 1 — both cases are checked, nothing is skipped.
 */
async function untilRefused(limit: number, send: (i: number) => Promise<ApiResponse>) {
  const started = minute();
  const statuses: number[] = [];
  let refused: ApiResponse | null = null;
  for (let i = 0; i < 2 * limit + 1 && !refused; i++) {
    const res = await send(i);
    statuses.push(res.status);
    if (res.status === 429) refused = res;
  }
  expect(refused, `statuses ${statuses.join(",")}`).not.toBeNull();
  if (minute() === started) expect(statuses.length).toBe(limit + 1);
  else expect(statuses.length).toBeGreaterThan(limit);
  return { refused: refused!, statuses };
}

function tooManyPage(res: ApiResponse) {
  expect(res.status).toBe(429);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  const retry = Number(res.headers.get("retry-after"));
  expect(retry).toBeGreaterThanOrEqual(1);
  expect(retry).toBeLessThanOrEqual(60);
  expect(res.text).toContain("<h1>Too many attempts</h1>");
  expect(res.text).toContain(`Too many attempts. Try again in ${retry} seconds.`);
}

describe("hosted page throttles", () => {
  it("flow starts: per IP (an IPv6 /64 as one), across links; another network has its own window", async () => {
    const ws = await createTestWorkspace();
    const x = new FakeX();
    cleanups.push(x.install());
    cleanups.push(installOAuthNetwork(fakeXOAuth({ authOrigin: "https://x-auth.fake", apiOrigin: "https://x.fake" })));
    const links = [await link(ws), await link(ws)];
    const start = (i: number, ip: string) =>
      postForm(
        `/connect/${links[i % 2]!.token}/start`,
        [
          ["csrf", links[i % 2]!.csrf],
          ["platform", "x"],
        ],
        { "CF-Connecting-IP": ip },
      );
    const { refused, statuses } = await untilRefused(STARTS, (i) => start(i, `2001:db8:77:1::${i + 1}`));
    expect(statuses.slice(0, -1).every((s) => s === 303)).toBe(true);
    tooManyPage(refused);
    expect((await start(0, "2001:db8:77:2::1")).status).toBe(303);
  });

  it("flow starts: per link, whatever the IP", async () => {
    const ws = await createTestWorkspace();
    const x = new FakeX();
    cleanups.push(x.install());
    cleanups.push(installOAuthNetwork(fakeXOAuth({ authOrigin: "https://x-auth.fake", apiOrigin: "https://x.fake" })));
    const one = await link(ws);
    const { refused } = await untilRefused(STARTS, (i) =>
      postForm(
        `/connect/${one.token}/start`,
        [
          ["csrf", one.csrf],
          ["platform", "x"],
        ],
        { "CF-Connecting-IP": `198.51.100.${i + 1}` },
      ),
    );
    tooManyPage(refused);
  });

  it("Bluesky app passwords: per IP and per link; the right password is refused too while the window lasts", async () => {
    const ws = await createTestWorkspace();
    const bsky = new FakeBluesky();
    cleanups.push(bsky.install());
    const byIp = [await link(ws), await link(ws)];
    const attempt = (l: { token: string; csrf: string }, ip: string) =>
      postForm(
        `/connect/${l.token}/bluesky`,
        [
          ["csrf", l.csrf],
          ["identifier", bsky.identifier],
          ["app_password", "wrong-wrong-wrong-wrong"],
          ["service", BSKY_PDS],
        ],
        { "CF-Connecting-IP": ip },
      );
    const ip = await untilRefused(TRIES, (i) => attempt(byIp[i % 2]!, "203.0.113.9"));
    expect(ip.statuses.slice(0, -1).every((s) => s === 422)).toBe(true);
    tooManyPage(ip.refused);

    const shared = await link(ws);
    const window = minute();
    const perLink = await untilRefused(TRIES, (i) => attempt(shared, `192.0.2.${i + 1}`));
    tooManyPage(perLink.refused);
    // The right password from a fresh IP on that link: refused while the link's window lasts (connected only if a
    // window boundary passed meanwhile).
    const late = await postForm(
      `/connect/${shared.token}/bluesky`,
      [
        ["csrf", shared.csrf],
        ["identifier", bsky.identifier],
        ["app_password", bsky.password],
        ["service", BSKY_PDS],
      ],
      { "CF-Connecting-IP": "192.0.2.200" },
    );
    if (minute() === window) tooManyPage(late);
    else expect([429, 200]).toContain(late.status);
    expect((await ws.api("GET", "/api/social-accounts")).body.length).toBe(late.status === 200 ? 1 : 0);
  });

  it("the API flow's Continue counts as a start of its IP", async () => {
    const ws = await createTestWorkspace();
    const x = new FakeX();
    cleanups.push(x.install());
    cleanups.push(installOAuthNetwork(fakeXOAuth({ authOrigin: "https://x-auth.fake", apiOrigin: "https://x.fake" })));
    const { refused } = await untilRefused(STARTS, async () => {
      const start = await ws.api("POST", "/api/social-accounts/connect", { platform: "x" });
      const path = new URL(start.body.url).pathname;
      const { action, csrf } = formOf((await browse("GET", path)).text);
      return postForm(action, [["csrf", csrf]], { "CF-Connecting-IP": "203.0.113.77" });
    });
    tooManyPage(refused);
  });
});
