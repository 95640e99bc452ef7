import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SIGN_IN_EMAIL_FACTOR, SIGN_IN_NETWORK_FACTOR, throttleSignIn } from "../../../src/services/people/throttle";
import type { ApiResponse } from "../../support/harness";
import { PASSWORD, signIn, uniqueEmail, workspaceWithOwner } from "./support";

// SIGN_IN_TRIES_PER_MINUTE is 5 (wrangler.jsonc). Each test uses addresses and emails of its own.
const LIMIT = 5;
const randomIp = () => `192.0.2.${Math.floor(Math.random() * 250)}`;
const minute = () => Math.floor(Date.now() / 60_000);

/**
 * Sends `send()` until the first refusal (at most 2 × limit + 1 times). Within one fixed window the first `limit` are
 * answered and the next is refused; when a window boundary falls in between, the count restarts once, so the refusal
 * comes no later than 2 × limit + 1 (as test/connect/hosted-throttle.test.ts). Both cases are checked.
 */
async function untilRefused(send: (i: number) => Promise<ApiResponse>, limit = LIMIT) {
  const started = minute();
  const statuses: number[] = [];
  let refused: ApiResponse | null = null;
  for (let i = 0; i < 2 * limit + 1 && !refused; i++) {
    const res = await send(i);
    statuses.push(res.status);
    if (res.status === 429) refused = res;
  }
  expect(refused, `statuses ${statuses.join(",")}`).not.toBeNull();
  if (minute() === started) expect(statuses).toEqual([...Array(limit).fill(401), 429]);
  else expect(statuses.length).toBeGreaterThan(limit);
  return { refused: refused as ApiResponse, minute: minute() };
}

/** The status a follow-up attempt must get: refused while still in the refusing window, answered in a new one. */
async function followUp(refusedIn: number, send: () => Promise<ApiResponse>, answered: number) {
  const before = minute();
  const res = await send();
  const after = minute();
  if (after === refusedIn) expect(res.status).toBe(429);
  else if (before !== refusedIn) expect(res.status).toBe(answered);
  else expect([429, answered]).toContain(res.status); // the boundary fell during this very request
  return res;
}

/** `throttleSignIn` called `count` times in sequence: "allowed" or "refused" (its 429) for each. */
async function attempts(count: number, subject: (i: number) => { ip: string; email: string }) {
  const out: string[] = [];
  for (let i = 0; i < count; i++)
    out.push(
      await throttleSignIn(env, LIMIT, subject(i)).then(
        () => "allowed",
        (err: { status?: number }) => (err.status === 429 ? "refused" : `error ${String(err)}`),
      ),
    );
  return out;
}

/**
 * `limit + 1` attempts inside one minute window answer `limit` allowed and then refused. Sent again with fresh
 * subjects when a window boundary fell among them (the count restarts there), so the check is always exact.
 */
async function expectRefusedAfter(limit: number, subject: (i: number, round: number) => { ip: string; email: string }) {
  for (let round = 0; ; round++) {
    const started = minute();
    const outcomes = await attempts(limit + 1, (i) => subject(i, round));
    if (minute() !== started && round === 0) continue;
    expect(outcomes).toEqual([...Array(limit).fill("allowed"), "refused"]);
    return;
  }
}

describe("sign-in throttle (issue 27; issue 35: no lockout anyone can set off against an owner)", () => {
  it("one network on one email: past the limit 429 with Retry-After, even for the right password; the owner signs in from elsewhere", async () => {
    const ws = await workspaceWithOwner();
    const attacker = { "CF-Connecting-IP": randomIp() };
    const { refused, minute: refusedIn } = await untilRefused(() => signIn(ws.email, "wrong password", attacker));
    expect(refused.body).toEqual({ message: expect.stringMatching(/^Too many requests\. Retry after \d+ seconds\.$/) });
    const retry = Number(refused.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    // From the guessing network the right password is refused too (no cookie) until a new window...
    const right = await followUp(refusedIn, () => signIn(ws.email, PASSWORD, attacker), 200);
    if (right.status === 429) expect(right.headers.getSetCookie()).toEqual([]);
    // ...while the owner, on another network, is not locked out.
    expect((await signIn(ws.email)).status).toBe(200);
  });

  // The wider windows are counted by the same function the routes call (the first test shows the route uses it); called
  // directly, 20 and 50 attempts cost no password hashing.
  it(`one network spraying many emails is stopped at ${SIGN_IN_NETWORK_FACTOR} × the limit; another network is not`, async () => {
    const ips = [randomIp(), `198.51.100.${Math.floor(Math.random() * 250)}`];
    await expectRefusedAfter(LIMIT * SIGN_IN_NETWORK_FACTOR, (i, round) => ({
      ip: ips[round]!,
      email: uniqueEmail(`spray${i}`),
    }));
    expect(
      await attempts(1, () => ({ ip: `203.0.113.${Math.floor(Math.random() * 250)}`, email: uniqueEmail("x") })),
    ).toEqual(["allowed"]);
  });

  it(`one email guessed from many networks is stopped at ${SIGN_IN_EMAIL_FACTOR} × the limit`, async () => {
    const emails = [uniqueEmail("guessed"), uniqueEmail("guessed-again")];
    const base = Math.floor(Math.random() * 200);
    await expectRefusedAfter(LIMIT * SIGN_IN_EMAIL_FACTOR, (i, round) => ({
      ip: `198.18.${base + round}.${i}`,
      email: emails[round]!,
    }));
  });

  it("an IPv6 client is counted by its /64", async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1`;
    const email = uniqueEmail("v6");
    await untilRefused((i) => signIn(email, PASSWORD, { "CF-Connecting-IP": `${prefix}::${i + 1}` }));
  });
});
