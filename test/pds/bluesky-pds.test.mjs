// The Bluesky adapter against a real Bluesky PDS (issue 16 and issue 20 "done when"): @atproto/pds and its PLC
// directory run on 127.0.0.1 in this process (test/pds/local-pds.mjs), the Worker runs under `wrangler dev`, and
// everything goes through the public API as a client would: connect the account with an app password, create the
// post, upload the photo, schedule or publish, let the queue publish. Each test reads the record back from the PDS
// (com.atproto.repo.getRecord / listRecords) and checks what the network stored, not only that nothing failed.
// Run alone: `npm run test:pds`. Skipped with a message only when the PDS cannot be loaded here.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer as createHttpServer } from "node:http";
import { after, before, describe, test } from "node:test";
import sharp from "sharp";
import { freePort, importPds, pdsUnavailable, startLocalPds, VERSIONS } from "./local-pds.mjs";
import { startLossyProxy } from "./lossy-proxy.mjs";
import { ADMIN_TOKEN, startWorker } from "./worker.mjs";

const unavailable = pdsUnavailable();
const skip = unavailable ? `the local Bluesky PDS cannot run here: ${unavailable}` : false;
if (skip) console.log(`# SKIP test/pds: ${skip}`);

/** The image blob limit the project holds Bluesky to (src/catalog/media-specs.ts, the long-standing lexicon). */
const BLUESKY_IMAGE_MAX_BYTES = 1_000_000;
const POST = "app.bsky.feed.post";
const bytes = (s) => Buffer.byteLength(s, "utf8");
const sha256 = (buf) => createHash("sha256").update(buf).digest("hex");

let pds;
let proxy;
let worker;
let key;
let alice;
let bob;
let carol;
let aliceAccountId;
let carolAccountId;
const timings = {};

before(async () => {
  if (skip) return;
  // The PDS and wrangler dev start side by side; the Worker learns the PDS's addresses from the ports picked first.
  const pdsPort = await freePort();
  const plcPort = await freePort();
  const started = performance.now();
  const startPds = async () => {
    const modules = await importPds();
    timings.pdsImportMs = Math.round(performance.now() - started);
    return startLocalPds(modules, { port: pdsPort, plcPort });
  };
  [pds, worker] = await Promise.all([
    startPds(),
    startWorker({
      MEDIA_FETCH_ALLOW_PRIVATE: "true", // the PDS is on loopback (docs/security.md)
      BLUESKY_PLC_URL: `http://127.0.0.1:${plcPort}`,
      BLUESKY_APPVIEW_URL: `http://127.0.0.1:${pdsPort}`,
    }),
  ]);
  timings.pdsStartupMs = pds.startupMs;
  timings.workerReadyMs = worker.readyMs;
  [alice, bob, carol] = await Promise.all(["alice.test", "bob.test", "carol.test"].map((h) => pds.createAccount(h)));
  proxy = await startLossyProxy(pds.url);
  const ws = await worker.api("POST", "/api/admin/workspaces", { name: "PDS" }, ADMIN_TOKEN);
  assert.equal(ws.status, 201, JSON.stringify(ws.body));
  key = ws.body.plain_token;
  aliceAccountId = (await connect(alice, pds.url)).id;
  carolAccountId = (await connect(carol, proxy.url)).id;
  console.log(`# local PDS: ${JSON.stringify(VERSIONS)}; ${JSON.stringify(timings)}`);
});

after(async () => {
  await worker?.stop();
  await proxy?.close();
  await pds?.close();
});

/** Connects a PDS account through the API with its app password (the Bluesky form of POST /api/social-accounts). */
async function connect(account, service) {
  const res = await worker.api(
    "POST",
    "/api/social-accounts",
    {
      platform: "bluesky",
      display_name: account.handle,
      username: "",
      credentials: { identifier: account.handle, app_password: account.appPassword },
      meta: { service },
    },
    key,
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.platform, "bluesky");
  assert.equal(res.body.username, account.handle);
  assert.equal(res.body.platform_user_id ?? account.did, account.did);
  assert.equal(JSON.stringify(res.body).includes(account.appPassword), false, "the app password is never shown");
  return res.body;
}

async function createPost(content, accountId) {
  const res = await worker.api(
    "POST",
    "/api/posts",
    { content, platforms: [{ social_account_id: accountId, content_type: "bluesky_post" }] },
    key,
  );
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

/** Polls the post until no row is pending or publishing (the queue consumer runs in the background). */
async function settled(postId, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await worker.api("GET", `/api/posts/${postId}`, undefined, key);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const busy = res.body.platforms.some((p) => p.status === "pending" || p.status === "publishing");
    if (!busy && res.body.status !== "scheduled" && res.body.status !== "publishing") return res.body;
    if (Date.now() > deadline) assert.fail(`post ${postId} still ${res.body.status}: ${JSON.stringify(res.body)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The record a published row points at: its URL ends with the record key. */
async function recordOf(platform, did) {
  assert.equal(platform.status, "published", platform.error_message ?? "");
  const rkey = platform.platform_url.split("/").at(-1);
  return pds.xrpc("com.atproto.repo.getRecord", { query: { repo: did, collection: POST, rkey } });
}

/** A 12-megapixel phone-style photo: smooth light, fine sensor noise, a JPEG of a few megabytes. */
async function phonePhoto() {
  const width = 4032;
  const height = 3024;
  const raw = new Uint8ClampedArray(width * height * 3); // clamps to 0–255 and rounds
  let seed = 42;
  const noise = () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return (seed / 2 ** 32 - 0.5) * 24;
  };
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const n = noise();
      raw[i] = 60 + (150 * x) / width + 30 * Math.sin(y / 97) + n;
      raw[i + 1] = 90 + (100 * y) / height + 25 * Math.cos(x / 131) + n;
      raw[i + 2] = 140 + 60 * Math.sin((x + y) / 211) + n;
    }
  }
  const jpeg = await sharp(Buffer.from(raw.buffer), { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
  return { jpeg, width, height };
}

describe("Bluesky adapter against a real local PDS", { concurrency: true }, () => {
  test("issue 16: a 12 MP phone photo publishes; the record embeds the fitted blob, media[] keeps the original", {
    skip,
  }, async () => {
    const photo = await phonePhoto();
    assert.ok(photo.jpeg.length > 2_000_000, `the photo is ${photo.jpeg.length} bytes`);

    // Unfitted, the real PDS refuses it: the blob uploads, the record that embeds it does not.
    const raw = await pds.xrpc("com.atproto.repo.uploadBlob", {
      token: alice.accessJwt,
      body: photo.jpeg,
      contentType: "image/jpeg",
    });
    const refused = await pds
      .xrpc("com.atproto.repo.createRecord", {
        token: alice.accessJwt,
        json: {
          repo: alice.did,
          collection: POST,
          record: {
            $type: POST,
            text: "unfitted",
            createdAt: new Date().toISOString(),
            embed: { $type: "app.bsky.embed.images", images: [{ alt: "", image: raw.blob }] },
          },
        },
      })
      .then(
        () => null,
        (err) => err,
      );
    assert.ok(refused, "the PDS accepted a record with an unfitted phone photo");
    assert.equal(refused.status, 400, refused.message);
    console.log(`# the PDS refuses the unfitted ${photo.jpeg.length}-byte photo: ${refused.message}`);

    const post = await createPost("A phone photo, straight from the camera", aliceAccountId);
    const form = new FormData();
    form.append("media", new Blob([photo.jpeg], { type: "image/jpeg" }), "IMG_0001.jpg");
    const upload = await worker.api("POST", `/api/posts/${post.id}/media`, form, key);
    assert.equal(upload.status, 200, JSON.stringify(upload.body));
    const [original] = upload.body.media;
    assert.deepEqual(
      { type: original.type, mime: original.mime_type, size: original.size, w: original.width, h: original.height },
      { type: "image", mime: "image/jpeg", size: photo.jpeg.length, w: photo.width, h: photo.height },
    );

    const publish = await worker.api("PUT", `/api/posts/${post.id}`, { status: "publishing" }, key);
    assert.equal(publish.status, 200, JSON.stringify(publish.body));
    const done = await settled(post.id);
    assert.equal(done.status, "published", JSON.stringify(done.platforms));

    const { value: record, uri } = await recordOf(done.platforms[0], alice.did);
    assert.equal(uri, `at://${alice.did}/${POST}/${done.platforms[0].platform_url.split("/").at(-1)}`);
    assert.equal(record.text, "A phone photo, straight from the camera");
    assert.equal(record.embed.$type, "app.bsky.embed.images");
    assert.equal(record.embed.images.length, 1);
    const { image, aspectRatio } = record.embed.images[0];
    assert.equal(image.$type, "blob");
    assert.equal(image.mimeType, "image/jpeg");
    assert.ok(image.size <= BLUESKY_IMAGE_MAX_BYTES, `blob of ${image.size} bytes`);
    assert.ok(image.size > 100_000, `blob of ${image.size} bytes is not a thumbnail`);

    // The blob the PDS stored is that JPEG, with the photo's proportions.
    const res = await fetch(`${pds.url}/xrpc/com.atproto.sync.getBlob?did=${alice.did}&cid=${image.ref.$link}`);
    assert.equal(res.status, 200);
    const stored = Buffer.from(await res.arrayBuffer());
    assert.equal(stored.length, image.size);
    const meta = await sharp(stored).metadata();
    assert.equal(meta.format, "jpeg");
    assert.ok(Math.abs(meta.width / meta.height - photo.width / photo.height) < 0.01, `${meta.width}×${meta.height}`);
    if (aspectRatio) assert.ok(Math.abs(aspectRatio.width / aspectRatio.height - 4 / 3) < 0.01);

    // The post still shows the original, byte for byte.
    assert.deepEqual(done.media, upload.body.media);
    const served = await fetch(original.url);
    assert.equal(served.status, 200);
    assert.equal(sha256(Buffer.from(await served.arrayBuffer())), sha256(photo.jpeg));
    console.log(
      `# photo ${photo.jpeg.length} B ${photo.width}×${photo.height} → blob ${image.size} B ${meta.width}×${meta.height}`,
    );
  });

  test("a scheduled post with a link, a mention and hashtags (＃ full-width, non-ASCII) gets exact byte facets", {
    skip,
  }, async () => {
    const link = "https://example.com/path?q=1&r=ü";
    const text = `Grüße von @bob.test — lies ${link}. ＃日本語 und #café! Ende`;
    const post = await createPost(text, aliceAccountId);
    // Far enough ahead to still be in the future when the PUT is checked on a loaded machine.
    const scheduledAt = new Date(Date.now() + 8_000).toISOString();
    const schedule = await worker.api(
      "PUT",
      `/api/posts/${post.id}`,
      { status: "scheduled", scheduled_at: scheduledAt },
      key,
    );
    assert.equal(schedule.status, 200, JSON.stringify(schedule.body));
    assert.equal(schedule.body.status, "scheduled");
    // The cron does not fire by itself under wrangler dev: once the time has come, run it as Cloudflare would.
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(scheduledAt) - Date.now()) + 1_000));
    const cron = await fetch(`${worker.base}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*`);
    assert.equal(cron.status, 200);
    const done = await settled(post.id);
    assert.equal(done.status, "published", JSON.stringify(done.platforms));

    const { value: record } = await recordOf(done.platforms[0], alice.did);
    assert.equal(record.text, text);
    const at = (s) => {
      const start = bytes(text.slice(0, text.indexOf(s)));
      return { byteStart: start, byteEnd: start + bytes(s) };
    };
    assert.deepEqual(record.facets, [
      { index: at("@bob.test"), features: [{ $type: "app.bsky.richtext.facet#mention", did: bob.did }] },
      { index: at(link), features: [{ $type: "app.bsky.richtext.facet#link", uri: link }] },
      { index: at("＃日本語"), features: [{ $type: "app.bsky.richtext.facet#tag", tag: "日本語" }] },
      { index: at("#café"), features: [{ $type: "app.bsky.richtext.facet#tag", tag: "café" }] },
    ]);
    // Read back as a client does: each range cuts exactly the written word out of the UTF-8 text.
    const utf8 = Buffer.from(record.text, "utf8");
    assert.deepEqual(
      record.facets.map((f) => utf8.subarray(f.index.byteStart, f.index.byteEnd).toString("utf8")),
      ["@bob.test", link, "＃日本語", "#café"],
    );
  });

  test("issue 20: a thread and a first comment publish as replies with root/parent strong refs and their own facets", {
    skip,
  }, async () => {
    const main = "Launch day: https://example.com/launch #launch";
    const items = [
      "Part two, details at https://example.org/zwei #zwei",
      "Part three ＃三番 see https://example.net/3?x=ü",
    ];
    const comment = "Questions? https://example.com/faq #faq";
    const res = await worker.api(
      "POST",
      "/api/posts",
      {
        content: "The text every other network gets",
        platforms: [
          {
            social_account_id: aliceAccountId,
            content_type: "bluesky_post",
            content: main,
            thread: items.map((content) => ({ content })),
            first_comment: comment,
          },
        ],
      },
      key,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const publish = await worker.api("PUT", `/api/posts/${res.body.id}`, { status: "publishing" }, key);
    assert.equal(publish.status, 200, JSON.stringify(publish.body));
    const done = await settled(res.body.id);
    assert.equal(done.status, "published", JSON.stringify(done.platforms));
    const row = done.platforms[0];
    assert.deepEqual(
      [
        ...row.thread.map((t) => [t.status, t.error_message]),
        [row.first_comment.status, row.first_comment.error_message],
      ],
      [
        ["published", null],
        ["published", null],
        ["published", null],
      ],
    );

    const read = async (uri) => {
      const [, , repo, collection, rkey] = uri.split("/");
      return pds.xrpc("com.atproto.repo.getRecord", { query: { repo, collection, rkey } });
    };
    const root = await recordOf(row, alice.did);
    const [t1, t2] = await Promise.all(row.thread.map((t) => read(t.platform_post_id)));
    const c = await read(row.first_comment.platform_post_id);
    const ref = (r) => ({ uri: r.uri, cid: r.cid });

    // Each item's URL is the item's own record (profile/<handle>/post/<rkey>).
    for (const [shown, rec] of [
      [row.thread[0], t1],
      [row.thread[1], t2],
      [row.first_comment, c],
    ]) {
      assert.equal(shown.platform_url.split("/").at(-1), rec.uri.split("/").at(-1));
    }
    assert.equal(root.value.text, main);
    assert.equal(root.value.reply, undefined);
    assert.deepEqual(t1.value.reply, { root: ref(root), parent: ref(root) });
    assert.deepEqual(t2.value.reply, { root: ref(root), parent: ref(t1) });
    assert.deepEqual(c.value.reply, { root: ref(root), parent: ref(root) });
    assert.deepEqual([t1.value.text, t2.value.text, c.value.text], [...items, comment]);

    const facetsOf = (text, parts) =>
      parts.map(([word, feature]) => {
        const byteStart = bytes(text.slice(0, text.indexOf(word)));
        return { index: { byteStart, byteEnd: byteStart + bytes(word) }, features: [feature] };
      });
    const link = (uri) => [uri, { $type: "app.bsky.richtext.facet#link", uri }];
    const tag = (sign, name) => [`${sign}${name}`, { $type: "app.bsky.richtext.facet#tag", tag: name }];
    assert.deepEqual(root.value.facets, facetsOf(main, [link("https://example.com/launch"), tag("#", "launch")]));
    assert.deepEqual(t1.value.facets, facetsOf(items[0], [link("https://example.org/zwei"), tag("#", "zwei")]));
    assert.deepEqual(t2.value.facets, facetsOf(items[1], [tag("＃", "三番"), link("https://example.net/3?x=ü")]));
    assert.deepEqual(c.value.facets, facetsOf(comment, [link("https://example.com/faq"), tag("#", "faq")]));
  });

  test("issue 29: texts just under both caps (300 graphemes, 3,000 UTF-8 bytes) publish; one byte-cap over is a 422", {
    skip,
  }, async () => {
    // 👨‍👩‍👧‍👦 is one grapheme of 25 bytes: 121 of them are 121 graphemes and 3,025 bytes.
    const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u200D\u{1F466}";
    const overBytes = family.repeat(121);
    const refused = await pds
      .xrpc("com.atproto.repo.createRecord", {
        token: alice.accessJwt,
        json: {
          repo: alice.did,
          collection: POST,
          record: { $type: POST, text: overBytes, createdAt: new Date().toISOString() },
        },
      })
      .then(
        () => null,
        (err) => err,
      );
    assert.ok(refused, "the PDS accepted 3,025 bytes of text");
    assert.equal(refused.status, 400, refused.message);
    assert.match(refused.message, /string too big \(maximum 3000, got 3025\)/);
    console.log(`# the PDS refuses 121 graphemes / 3,025 bytes: ${refused.message}`);

    const main = `${family.repeat(100)}${"日".repeat(166)}ok`; // 268 graphemes, 3,000 bytes
    const item = family.repeat(120); // 120 graphemes, 3,000 bytes
    const comment = `${family.repeat(100)}${"ü".repeat(199)}`; // 299 graphemes, 2,898 bytes
    assert.deepEqual([bytes(main), bytes(item), bytes(comment)], [3000, 3000, 2898]);
    const res = await worker.api(
      "POST",
      "/api/posts",
      {
        content: "Shared text",
        platforms: [
          {
            social_account_id: aliceAccountId,
            content_type: "bluesky_post",
            content: main,
            thread: [{ content: overBytes }],
            first_comment: comment,
          },
        ],
      },
      key,
    );
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    const over = await worker.api(
      "PUT",
      `/api/posts/${res.body.id}`,
      { status: "scheduled", scheduled_at: tomorrow },
      key,
    );
    assert.equal(over.status, 422, JSON.stringify(over.body));
    assert.deepEqual(over.body.errors, {
      "platforms.0.thread.0.content": [
        "Thread item 1: Bluesky: 3,025 bytes exceed Bluesky's 3,000-byte limit (UTF-8; too long by 25 bytes).",
      ],
    });

    const rowId = res.body.platforms[0].id;
    const publish = await worker.api(
      "PUT",
      `/api/posts/${res.body.id}`,
      { status: "publishing", platforms: [{ id: rowId, thread: [{ content: item }] }] },
      key,
    );
    assert.equal(publish.status, 200, JSON.stringify(publish.body));
    const done = await settled(res.body.id);
    assert.equal(done.status, "published", JSON.stringify(done.platforms));
    const row = done.platforms[0];
    const read = async (uri) => {
      const [, , repo, collection, rkey] = uri.split("/");
      return pds.xrpc("com.atproto.repo.getRecord", { query: { repo, collection, rkey } });
    };
    const root = await recordOf(row, alice.did);
    const t1 = await read(row.thread[0].platform_post_id);
    const c = await read(row.first_comment.platform_post_id);
    assert.deepEqual([root.value.text, t1.value.text, c.value.text], [main, item, comment]);
  });

  for (const mode of ["502", "cut"]) {
    test(`a createRecord answer lost after the PDS made the record (${mode === "cut" ? "connection cut" : "gateway 502"}) leaves one record`, {
      skip,
    }, async () => {
      const text = `Lost answer (${mode}) ${Date.now()}`;
      proxy.loseAnswer("com.atproto.repo.createRecord", text, mode);
      const post = await createPost(text, carolAccountId);
      const publish = await worker.api("PUT", `/api/posts/${post.id}`, { status: "publishing" }, key);
      assert.equal(publish.status, 200, JSON.stringify(publish.body));
      // A cut connection is retried by the queue after its backoff (30 s ± 20 %); a 502 is checked at once.
      const done = await settled(post.id, 120_000);
      assert.equal(done.status, "published", JSON.stringify(done.platforms));
      const { uri } = await recordOf(done.platforms[0], carol.did);

      const list = await pds.xrpc("com.atproto.repo.listRecords", {
        query: { repo: carol.did, collection: POST, limit: "100" },
      });
      const mine = list.records.filter((r) => r.value.text === text);
      assert.deepEqual(
        mine.map((r) => r.uri),
        [uri],
      );
      // The record key is derived from the row: the retry asked the PDS for it instead of creating it again.
      assert.equal(proxy.calls("com.atproto.repo.createRecord", text), 1);
    });
  }
});

/**
 * A server of the attacker's on 127.0.0.1 that answers createSession with the DID it is told to claim and the
 * token it is given (a forged one, or another account's real token), and vouches for it at getSession.
 */
async function startImpostor(claim) {
  const port = await freePort();
  const server = createHttpServer((req, res) => {
    const nsid = new URL(req.url, "http://x").pathname.replace(/^\/xrpc\//, "");
    res.setHeader("content-type", "application/json");
    if (nsid === "com.atproto.server.createSession" || nsid === "com.atproto.server.getSession") {
      req.resume();
      res.end(
        JSON.stringify({ did: claim.did, handle: claim.handle, accessJwt: claim.token, refreshJwt: claim.token }),
      );
      return;
    }
    res.statusCode = 501;
    res.end(JSON.stringify({ error: "MethodNotImplemented" }));
  });
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

describe("issue 25: a server that claims an account's DID cannot reconnect it (real PDS and PLC)", () => {
  test("the DID document names the real PDS, which refuses the impostor's session; the owner's reconnect works", {
    skip,
  }, async () => {
    const bobAccount = await connect(bob, pds.url);
    const listed = async () =>
      (await worker.api("GET", "/api/social-accounts", undefined, key)).body.find((a) => a.id === bobAccount.id);
    const before = await listed();

    // 1. A forged token; 2. a REAL token of another account of the same PDS (alice's), while claiming bob's DID.
    for (const token of ["forged.access.jwt", alice.accessJwt]) {
      const impostor = await startImpostor({ did: bob.did, handle: bob.handle, token });
      try {
        const res = await worker.api(
          "POST",
          "/api/social-accounts",
          {
            platform: "bluesky",
            display_name: "bob",
            username: "",
            credentials: { identifier: bob.handle, app_password: "guessed" },
            meta: { service: impostor.url },
          },
          key,
        );
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.match(
          res.body.message,
          new RegExp(
            `cannot sign in as ${bob.did}: its DID document names http://localhost:\\d+ as the account's server, and that server did not accept the session\\.$`,
          ),
        );
        console.log(
          `# impostor (${token === alice.accessJwt ? "alice's real token" : "forged token"}): ${res.status} ${res.body.message}`,
        );
      } finally {
        await impostor.close();
      }
    }
    assert.deepEqual(await listed(), before);

    // Bob's account still publishes to the real PDS.
    const post = await createPost(`Still mine ${Date.now()}`, bobAccount.id);
    const publish = await worker.api("PUT", `/api/posts/${post.id}`, { status: "publishing" }, key);
    assert.equal(publish.status, 200, JSON.stringify(publish.body));
    const done = await settled(post.id);
    const record = await recordOf(done.platforms[0], bob.did);
    assert.equal(record.value.text, post.content);

    // The genuine reconnect: the same row.
    const again = await connect(bob, pds.url);
    assert.equal(again.id, bobAccount.id);
  });
});
