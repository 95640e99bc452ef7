// fresh storage: runs a storage sweep, which reads every workspace's objects and rows.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import {
  ORPHAN_GRACE_MS,
  sweepOrphanObjects,
  sweepUnattachedUploads,
  UPLOAD_ASSET_TTL_MS,
} from "../../src/services/lifecycle/sweep-media";
import { attachUploadToPost } from "../../src/services/uploads/attach-upload";
import { bucketKeys, GIF_1X1, insertPost, mediaForm, mediaRows, workspaceContext } from "../media/fixtures";
import { call, createTestWorkspace, type TestWorkspace } from "../support/harness";

let ipCounter = 0;
async function upload(ws: TestWorkspace, key = ws.key) {
  const issued = await call("POST", "/api/uploads", { key });
  expect(issued.status).toBe(201);
  const u = new URL(issued.body.upload_url);
  const res = await call("POST", `${u.pathname}${u.search}`, {
    rawBody: mediaForm(GIF_1X1, "a.gif"),
    headers: { "CF-Connecting-IP": `198.51.100.${++ipCounter}` },
  });
  return { token: issued.body.upload_token as string, res };
}

const at = (ws: TestWorkspace, now: number) => ({ ...workspaceContext(ws), now: () => now });

describe("storage lifecycle", () => {
  it("removes signed-upload assets never attached once they are older than the TTL; attached ones stay", async () => {
    const ws = await createTestWorkspace();
    const attached = await upload(ws);
    const loose = await upload(ws);
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    await attachUploadToPost(workspaceContext(ws), { post_id: postId, upload_token: attached.token });
    const rows = await mediaRows(ws.workspaceId);
    expect(rows).toHaveLength(2);
    const loosePath = rows.find((r) => r.upload_token === loose.token)!.path as string;
    const keptPath = rows.find((r) => r.upload_token === attached.token)!.path as string;

    // Younger than the TTL: nothing goes.
    expect(await sweepUnattachedUploads(at(ws, Date.now() + UPLOAD_ASSET_TTL_MS - 60_000))).toBe(0);
    expect(await sweepUnattachedUploads(at(ws, Date.now() + UPLOAD_ASSET_TTL_MS + 60_000))).toBe(1);
    expect((await mediaRows(ws.workspaceId)).map((r) => r.upload_token)).toEqual([attached.token]);
    const keys = await bucketKeys();
    expect(keys).toContain(keptPath);
    expect(keys).not.toContain(loosePath);
  });

  it("deletes R2 objects no row references once past the grace age, resuming from a cursor page by page", async () => {
    const ws = await createTestWorkspace();
    const { res } = await upload(ws);
    expect(res.status).toBe(201);
    const referenced = (await mediaRows(ws.workspaceId))[0]!.path as string;
    const orphans = Array.from({ length: 3 }, () => `medias/${crypto.randomUUID()}.jpg`);
    for (const key of orphans) await env.MEDIA_BUCKET.put(key, new Uint8Array([1, 2, 3]));

    // Within the grace age (an upload in flight stores its object before its row): kept.
    const young = await sweepOrphanObjects(at(ws, Date.now() + ORPHAN_GRACE_MS - 60_000));
    expect(young.deleted).toBe(0);
    // Past it: a full pass (several pages; the test's cursor starts wherever the last pass stopped).
    let deleted = 0;
    for (let page = 0; page < 20; page++) {
      const r = await sweepOrphanObjects(at(ws, Date.now() + ORPHAN_GRACE_MS + 60_000));
      deleted += r.deleted;
      const cursor = await env.DB.prepare("SELECT cursor FROM lifecycle_cursors WHERE name = 'r2-orphans'").first();
      if (cursor?.cursor === null && page > 0) break;
    }
    const keys = await bucketKeys();
    expect(keys).toContain(referenced);
    for (const key of orphans) expect(keys).not.toContain(key);
    expect(deleted).toBeGreaterThanOrEqual(orphans.length);
  });

  it("a signed URL stops working when the API key that issued it is revoked", async () => {
    const ws = await createTestWorkspace();
    const minted = await ws.api("POST", "/api/api-keys", { name: "agent", scopes: ["publish"] });
    const issued = await call("POST", "/api/uploads", { key: minted.body.plain_token });
    const revoked = await ws.api("DELETE", `/api/api-keys/${minted.body.token.id}`);
    expect(revoked.status).toBe(204);
    const u = new URL(issued.body.upload_url);
    const res = await call("POST", `${u.pathname}${u.search}`, {
      rawBody: mediaForm(GIF_1X1, "a.gif"),
      headers: { "CF-Connecting-IP": `198.51.100.${++ipCounter}` },
    });
    expect({ status: res.status, body: res.body }).toEqual({
      status: 403,
      body: { message: "The API key that issued this upload URL has been revoked." },
    });
    expect(await mediaRows(ws.workspaceId)).toEqual([]);
    // A URL of a live key still works.
    expect((await upload(ws)).res.status).toBe(201);
  });
});
