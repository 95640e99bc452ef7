import { afterEach, beforeEach } from "vitest";
import { BSKY_PDS, BSKY_VIDEO, FakeBluesky } from "../support/fakes/bluesky";
import { FakeMastodon, MASTODON } from "../support/fakes/mastodon";
import { FakeX } from "../support/fakes/x";
import type { TestWorkspace } from "../support/harness";
import { seedAccount } from "./support";

/** One connected account per platform of this branch, each backed by a fresh fake. */
export interface Fakes {
  x: FakeX;
  bluesky: FakeBluesky;
  mastodon: FakeMastodon;
  uninstall: () => void;
}

export function installFakes(): Fakes {
  const x = new FakeX();
  const bluesky = new FakeBluesky();
  const mastodon = new FakeMastodon();
  const off = [x.install(), bluesky.install(), mastodon.install()];
  return {
    x,
    bluesky,
    mastodon,
    uninstall: () => {
      for (const f of off) f();
    },
  };
}

/**
 * Fresh fakes for every test of the calling file, installed before each test and removed after it. The object
 * returned stays the same; its fakes are the current test's.
 */
export function installFakesEachTest(): Fakes {
  const current = {} as Fakes;
  beforeEach(() => {
    Object.assign(current, installFakes());
  });
  afterEach(() => current.uninstall());
  return current;
}

export function seedXAccount(ws: TestWorkspace, overrides: Partial<Parameters<typeof seedAccount>[1]> = {}) {
  return seedAccount(ws, {
    platform: "x",
    username: "alice_x",
    platformUserId: "1234567890",
    credentials: { access_token: "x-access", refresh_token: "x-refresh", expires_at: Date.now() + 2 * 3600_000 },
    tokenExpiresAt: Date.now() + 2 * 3600_000,
    ...overrides,
  });
}

export function seedBlueskyAccount(
  ws: TestWorkspace,
  fake: FakeBluesky,
  overrides: Partial<Parameters<typeof seedAccount>[1]> = {},
) {
  const session = fake.issueSession();
  return seedAccount(ws, {
    platform: "bluesky",
    username: fake.userHandle,
    platformUserId: fake.did,
    credentials: {
      identifier: fake.identifier,
      app_password: fake.password,
      access_jwt: session.accessJwt,
      refresh_jwt: session.refreshJwt,
    },
    meta: { service: BSKY_PDS, did: fake.did, video_service: BSKY_VIDEO },
    ...overrides,
  });
}

export function seedMastodonAccount(ws: TestWorkspace, overrides: Partial<Parameters<typeof seedAccount>[1]> = {}) {
  return seedAccount(ws, {
    platform: "mastodon",
    username: "alice",
    platformUserId: "109000000000000001",
    credentials: { access_token: "masto-token" },
    meta: { instance: MASTODON },
    ...overrides,
  });
}
