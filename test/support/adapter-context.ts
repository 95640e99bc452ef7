import { env } from "cloudflare:workers";
import { loadConfig } from "../../src/config";
import type {
  AdapterAccount,
  AdapterContext,
  AdapterMedia,
  PublishCheckpoint,
  PublishRequest,
  PublishResult,
  PublishState,
} from "../../src/platforms/types";
import { BSKY_PDS, BSKY_VIDEO, type FakeBluesky } from "./fakes/bluesky";

/**
 * An AdapterContext for calling adapters directly in tests: real Config from the test bindings (platform hosts
 * point at *.fake origins), media read from the real R2 binding, instant sleeps.
 */
export function testAdapterContext(overrides: Partial<AdapterContext> = {}): AdapterContext {
  return {
    config: loadConfig(env),
    fetch: (input, init) => fetch(input, init),
    openMedia: async (m) => {
      const obj = await env.MEDIA_BUCKET.get(m.path);
      if (!obj) throw new Error(`missing media ${m.path}`);
      return { body: obj.body, size: obj.size };
    },
    readMedia: async (m) => {
      const obj = await env.MEDIA_BUCKET.get(m.path);
      if (!obj) throw new Error(`missing media ${m.path}`);
      return new Uint8Array(await obj.arrayBuffer());
    },
    now: () => Date.now(),
    sleep: async () => {},
    ...overrides,
  };
}

/** Stores bytes in R2 and returns the AdapterMedia describing them. */
export async function storeTestMedia(
  type: "image" | "video",
  bytes: Uint8Array = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]),
  mimeType = type === "image" ? "image/jpeg" : "video/mp4",
): Promise<AdapterMedia> {
  const id = crypto.randomUUID();
  const path = `medias/${id}.${type === "image" ? "jpg" : "mp4"}`;
  await env.MEDIA_BUCKET.put(path, bytes, { httpMetadata: { contentType: mimeType } });
  return {
    id,
    type,
    mimeType,
    url: `https://media.test/${path}`,
    path,
    size: bytes.byteLength,
    width: type === "image" ? 1080 : null,
    height: type === "image" ? 1080 : null,
    originalFilename: `file.${type === "image" ? "jpg" : "mp4"}`,
  };
}

export function testAccount(
  platform: AdapterAccount["platform"],
  overrides: Partial<AdapterAccount> = {},
): AdapterAccount {
  return {
    id: crypto.randomUUID(),
    platform,
    platformUserId: "1234567890",
    username: "tester",
    displayName: "Tester",
    meta: {},
    credentials: { access_token: "access-token", refresh_token: "refresh-token", expires_at: Date.now() + 3_600_000 },
    ...overrides,
  };
}

/** A media item for pure transform tests (nothing stored): `medias/<n>`, JPEG or MP4. */
export const mediaItem = (type: "image" | "video", n = 1): AdapterMedia => ({
  id: `m${n}`,
  type,
  mimeType: type === "image" ? "image/jpeg" : "video/mp4",
  url: `https://media.test/medias/${n}.${type === "image" ? "jpg" : "mp4"}`,
  path: `medias/${n}`,
  size: 1,
  width: null,
  height: null,
  originalFilename: "f",
});

/**
 * A publish checkpoint kept in memory, as the publish job keeps it on the row: what `save` stored is what the next
 * attempt gets as `saved` (pass the same checkpoint to both calls).
 */
export function memoryCheckpoint(saved: PublishState | null = null): PublishCheckpoint & { saves: PublishState[] } {
  const saves: PublishState[] = [];
  let current = saved;
  return {
    saves,
    get saved() {
      return current;
    },
    async save(state) {
      saves.push(state);
      current = state;
    },
  };
}

/**
 * The publish requests of one content type on one account, as the reply and thread tests build them:
 * `request(content, postPlatformId, extra?, media?)`. `account` is called per request (a network may want a fresh
 * session each time).
 */
export function publishRequests(contentType: string, account: () => AdapterAccount) {
  return (
    content: string,
    postPlatformId: string,
    extra: Partial<PublishRequest> = {},
    media: AdapterMedia[] = [],
  ): PublishRequest => ({ postPlatformId, contentType, content, media, meta: {}, account: account(), ...extra });
}

/** The `replyTo` of a thread item or first comment: under `parent`, in the thread that `root` started. */
export const replyTo = (root: PublishResult, parent: PublishResult = root): Pick<PublishRequest, "replyTo"> => ({
  replyTo: { root, parent },
});

/** A Bluesky account on the fake PDS with a freshly issued session (alice.test). */
export function blueskyAccount(pds: FakeBluesky): AdapterAccount {
  const session = pds.issueSession();
  return testAccount("bluesky", {
    username: "alice.test",
    platformUserId: pds.did,
    meta: { service: BSKY_PDS, did: pds.did, video_service: BSKY_VIDEO },
    credentials: { access_jwt: session.accessJwt, refresh_jwt: session.refreshJwt },
  });
}
