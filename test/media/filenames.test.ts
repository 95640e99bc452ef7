import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { boundedFilename, MAX_FILENAME_CHARS } from "../../src/media/ingest";
import { call, createTestWorkspace } from "../support/harness";
import { GIF_1X1, insertPost, mediaForm, mediaRows } from "./fixtures";

describe("client file names", () => {
  it("are cut to 255 characters without splitting a character", () => {
    expect(MAX_FILENAME_CHARS).toBe(255);
    expect(boundedFilename("a.png")).toBe("a.png");
    const long = `${"x".repeat(254)}😀😀tail.png`;
    const cut = boundedFilename(long);
    expect(cut).toBe(`${"x".repeat(254)}😀`);
    expect(Array.from(cut)).toHaveLength(255);
  });

  it("are stored cut, in R2 metadata and D1 alike (direct upload)", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const name = `${"é".repeat(3000)}.gif`; // 6 KB of UTF-8: near R2's 8,192-byte metadata limit on its own
    const res = await call("POST", `/api/posts/${postId}/media`, { key: ws.key, rawBody: mediaForm(GIF_1X1, name) });
    expect(res.status, res.text).toBe(200);
    const expected = "é".repeat(255);
    expect(res.body.media[0].original_filename).toBe(expected);
    const [row] = await mediaRows(ws.workspaceId);
    expect(row!.original_filename).toBe(expected);
    expect((await env.MEDIA_BUCKET.head(row!.path as string))!.customMetadata).toEqual({
      original_filename: expected,
    });
  });
});
