import { describe, expect, it } from "vitest";
import { blueskyAdapter } from "../../../src/platforms/bluesky/adapter";
import { tidFromRowId } from "../../../src/platforms/bluesky/transform";
import type { PublishResult } from "../../../src/platforms/types";
import { installFakesEachTest } from "../../publishing/platforms";
import {
  blueskyAccount,
  publishRequests,
  replyTo,
  storeTestMedia,
  testAdapterContext,
} from "../../support/adapter-context";
import { platformRejection } from "../../support/fakes/fake-kit";

/** Issue 20: thread items and first comments as Bluesky replies (`reply.root` / `reply.parent` strong refs). */

const fakes = installFakesEachTest();

const rowId = () => crypto.randomUUID();

// A fresh session for every request, as a connected account has.
const request = publishRequests("bluesky_post", () => blueskyAccount(fakes.bluesky));

const uriOf = (key: string) => `at://${fakes.bluesky.did}/app.bsky.feed.post/${tidFromRowId(key)}`;
const urlOf = (key: string) => `https://bsky.app/profile/alice.test/post/${tidFromRowId(key)}`;
const cidOf = (key: string) => fakes.bluesky.records.get(tidFromRowId(key))!.cid;

describe("Bluesky replies", () => {
  it("publishes a three-post thread: each item under the root and its parent, with facets, URLs and CIDs", async () => {
    const row = rowId();
    const ctx = testAdapterContext();
    const main = await blueskyAdapter.publish(ctx, request("1/3 Launch https://example.com #launch", row));
    const item1 = await blueskyAdapter.publish(
      ctx,
      request("2/3 Docs https://docs.example.com #docs", `${row}:t1`, replyTo(main)),
    );
    const item2 = await blueskyAdapter.publish(
      ctx,
      request("3/3 Thanks @bob.test #thanks", `${row}:t2`, replyTo(main, item1)),
    );

    expect([main, item1, item2]).toEqual([
      { platformPostId: uriOf(row), platformUrl: urlOf(row), replyRef: { cid: cidOf(row) } },
      { platformPostId: uriOf(`${row}:t1`), platformUrl: urlOf(`${row}:t1`), replyRef: { cid: cidOf(`${row}:t1`) } },
      { platformPostId: uriOf(`${row}:t2`), platformUrl: urlOf(`${row}:t2`), replyRef: { cid: cidOf(`${row}:t2`) } },
    ]);
    expect(fakes.bluesky.replyChain()).toEqual([
      { uri: uriOf(row), text: "1/3 Launch https://example.com #launch", root: null, parent: null },
      {
        uri: uriOf(`${row}:t1`),
        text: "2/3 Docs https://docs.example.com #docs",
        root: uriOf(row),
        parent: uriOf(row),
      },
      { uri: uriOf(`${row}:t2`), text: "3/3 Thanks @bob.test #thanks", root: uriOf(row), parent: uriOf(`${row}:t1`) },
    ]);
    const second = fakes.bluesky.records.get(tidFromRowId(`${row}:t2`))!.value;
    // Strong refs carry the exact CIDs of the root and the parent.
    expect(second.reply).toEqual({
      root: { uri: uriOf(row), cid: cidOf(row) },
      parent: { uri: uriOf(`${row}:t1`), cid: cidOf(`${row}:t1`) },
    });
    expect(second.facets).toEqual([
      {
        index: { byteStart: 11, byteEnd: 20 },
        features: [{ $type: "app.bsky.richtext.facet#mention", did: "did:plc:bob00000000000000000000" }],
      },
      { index: { byteStart: 21, byteEnd: 28 }, features: [{ $type: "app.bsky.richtext.facet#tag", tag: "thanks" }] },
    ]);
    expect(fakes.bluesky.records.get(tidFromRowId(`${row}:t1`))!.value.facets).toEqual([
      {
        index: { byteStart: 9, byteEnd: 33 },
        features: [{ $type: "app.bsky.richtext.facet#link", uri: "https://docs.example.com" }],
      },
      { index: { byteStart: 34, byteEnd: 39 }, features: [{ $type: "app.bsky.richtext.facet#tag", tag: "docs" }] },
    ]);
    expect(fakes.bluesky.count("POST /xrpc/com.atproto.repo.createRecord")).toBe(3);
    // CIDs came with the results: no record was read back.
    expect(fakes.bluesky.count("GET /xrpc/com.atproto.repo.getRecord")).toBe(0);
  });

  it("a thread item carries its own images", async () => {
    const row = rowId();
    const main = await blueskyAdapter.publish(testAdapterContext(), request("main", row));
    const image = await storeTestMedia("image");
    await blueskyAdapter.publish(testAdapterContext(), request("with a picture", `${row}:t1`, replyTo(main), [image]));
    const value = fakes.bluesky.records.get(tidFromRowId(`${row}:t1`))!.value;
    expect(value.embed).toMatchObject({ $type: "app.bsky.embed.images", images: [{ alt: "" }] });
    expect(value.reply.parent.uri).toBe(uriOf(row));
  });

  it("a first comment as a reply to a post that kept no CID reads the CID back with getRecord", async () => {
    const row = rowId();
    const main = await blueskyAdapter.publish(testAdapterContext(), request("older post", row));
    const withoutCid: PublishResult = { platformPostId: main.platformPostId, platformUrl: main.platformUrl };
    const comment = await blueskyAdapter.publish(
      testAdapterContext(),
      request("first comment", `${row}:c`, replyTo(withoutCid)),
    );
    expect(comment).toEqual({
      platformPostId: uriOf(`${row}:c`),
      platformUrl: urlOf(`${row}:c`),
      replyRef: { cid: cidOf(`${row}:c`) },
    });
    expect(fakes.bluesky.records.get(tidFromRowId(`${row}:c`))!.value.reply).toEqual({
      root: { uri: uriOf(row), cid: cidOf(row) },
      parent: { uri: uriOf(row), cid: cidOf(row) },
    });
    // root and parent are the same post: read once.
    expect(fakes.bluesky.count("GET /xrpc/com.atproto.repo.getRecord")).toBe(1);
  });

  it("a reply to a post that no longer exists fails permanently and creates nothing", async () => {
    const gone: PublishResult = { platformPostId: uriOf("deleted-row"), platformUrl: null };
    const row = rowId();
    expect(
      await platformRejection(
        blueskyAdapter.publish(testAdapterContext(), request("orphan", `${row}:t1`, replyTo(gone))),
      ),
    ).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: "The Bluesky post this reply answers no longer exists.",
      retryAfterSeconds: undefined,
      status: 400,
    });
    expect(fakes.bluesky.records.size).toBe(0);
  });

  it("a reply whose answer was lost is found again by its own record key: no second reply", async () => {
    const row = rowId();
    const main = await blueskyAdapter.publish(testAdapterContext(), request("main", row));
    const item = request("second post", `${row}:t1`, replyTo(main));
    fakes.bluesky.inject("POST /xrpc/com.atproto.repo.createRecord", async (req) => {
      await fakes.bluesky.serve(req);
      throw new TypeError("Network connection lost.");
    });
    expect(await platformRejection(blueskyAdapter.publish(testAdapterContext(), item))).toMatchObject({
      kind: "transient",
    });
    const expected = {
      platformPostId: uriOf(`${row}:t1`),
      platformUrl: urlOf(`${row}:t1`),
      replyRef: { cid: cidOf(`${row}:t1`) },
    };
    // Before a retry the engine asks; and a blind retry answers 500 for the existing key and resolves to it too.
    expect(await blueskyAdapter.findExisting!(testAdapterContext(), item)).toEqual(expected);
    expect(await blueskyAdapter.publish(testAdapterContext(), item)).toEqual(expected);
    expect(fakes.bluesky.records.size).toBe(2);
    // The main post's key and the item's key differ: the item never resolves to the main post.
    expect(await blueskyAdapter.findExisting!(testAdapterContext(), request("x", `${row}:t2`))).toBeNull();
  });

  it("classifies a throttled reply as transient (retry-after) and an expired session as auth", async () => {
    const row = rowId();
    const main = await blueskyAdapter.publish(testAdapterContext(), request("main", row));
    fakes.bluesky.inject("POST /xrpc/com.atproto.repo.createRecord", fakes.bluesky.rateLimited(45));
    expect(
      await platformRejection(
        blueskyAdapter.publish(testAdapterContext(), request("item", `${row}:t1`, replyTo(main))),
      ),
    ).toEqual({
      name: "PlatformError",
      kind: "transient",
      message: "Bluesky rate limit exceeded.",
      retryAfterSeconds: 45,
      status: 429,
    });
    const expired = request("item", `${row}:t1`, replyTo(main));
    fakes.bluesky.expireAccessTokens();
    expect(await platformRejection(blueskyAdapter.publish(testAdapterContext(), expired))).toMatchObject({
      kind: "auth",
    });
    expect(fakes.bluesky.records.size).toBe(1);
  });
});
