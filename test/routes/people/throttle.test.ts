import { describe, expect, it } from "vitest";
import { PASSWORD, signIn, uniqueEmail, workspaceWithOwner } from "./support";

// SIGN_IN_TRIES_PER_MINUTE is 5 (wrangler.jsonc). Each test uses addresses and emails of its own.
describe("sign-in throttle (issue 27)", () => {
  it("per email: the 6th attempt in a minute answers 429 with Retry-After, even with the right password", async () => {
    const ws = await workspaceWithOwner();
    for (let i = 0; i < 5; i++) expect((await signIn(ws.email, "wrong password")).status).toBe(401);
    const sixth = await signIn(ws.email, PASSWORD);
    expect(sixth.status).toBe(429);
    expect(sixth.body).toEqual({ message: expect.stringMatching(/^Too many requests\. Retry after \d+ seconds\.$/) });
    const retry = Number(sixth.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
    expect(sixth.headers.getSetCookie()).toEqual([]);
  });

  it("per client address: one address trying many emails is stopped; another address is not", async () => {
    const ip = `192.0.2.${Math.floor(Math.random() * 250)}`;
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++)
      statuses.push((await signIn(uniqueEmail("spray"), PASSWORD, { "CF-Connecting-IP": ip })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
    const ws = await workspaceWithOwner();
    expect((await signIn(ws.email)).status).toBe(200);
  });

  it("an IPv6 client is counted by its /64", async () => {
    const prefix = `2001:db8:${Math.floor(Math.random() * 0xffff).toString(16)}:1`;
    const statuses: number[] = [];
    for (let i = 1; i <= 6; i++)
      statuses.push((await signIn(uniqueEmail("v6"), PASSWORD, { "CF-Connecting-IP": `${prefix}::${i}` })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});
