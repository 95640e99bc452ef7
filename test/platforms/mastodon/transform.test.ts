import { describe, expect, it } from "vitest";
import {
  metricsFromStatus,
  multipartParts,
  statusBody,
  statusUrl,
  visibilityOf,
} from "../../../src/platforms/mastodon/transform";

describe("mastodon transforms", () => {
  it("builds a public status with media ids only when there are some", () => {
    expect(statusBody("hello", [])).toEqual({ status: "hello", visibility: "public" });
    expect(statusBody("hello", ["1", "2"])).toEqual({ status: "hello", visibility: "public", media_ids: ["1", "2"] });
  });

  it("takes the row's visibility, public when absent or unknown", () => {
    expect(statusBody("hi", [], "9", visibilityOf({ visibility: "private" }))).toEqual({
      status: "hi",
      visibility: "private",
      in_reply_to_id: "9",
    });
    expect(visibilityOf({})).toBe("public");
    expect(visibilityOf({ visibility: "followers" })).toBe("public");
  });

  it("uses the status url, else the canonical profile form", () => {
    expect(statusUrl("https://m.example", "alice", { id: "9", url: "https://m.example/@alice/9" })).toBe(
      "https://m.example/@alice/9",
    );
    expect(statusUrl("https://m.example", "@alice@m.example", { id: "9", url: null })).toBe(
      "https://m.example/@alice/9",
    );
  });

  it("maps status counts to the Mastodon labels", () => {
    expect(metricsFromStatus({ favourites_count: 4, reblogs_count: 2, replies_count: 1 })).toEqual([
      { label: "Favourites", value: 4 },
      { label: "Reblogs", value: 2 },
      { label: "Replies", value: 1 },
    ]);
  });

  it("frames a multipart body around a streamed file part", async () => {
    const { head, tail } = multipartParts(
      "B",
      { description: "alt" },
      {
        field: "file",
        filename: 'a"b.jpg',
        contentType: "image/jpeg",
      },
    );
    const body = new Blob([head, new Uint8Array([1, 2, 3]), tail]);
    const form = await new Request("https://x.test", {
      method: "POST",
      body,
      headers: { "content-type": "multipart/form-data; boundary=B" },
    }).formData();
    expect(form.get("description")).toBe("alt");
    const file = form.get("file") as File;
    expect(file.name).toBe("a_b.jpg");
    expect(file.type).toBe("image/jpeg");
    expect([...new Uint8Array(await file.arrayBuffer())]).toEqual([1, 2, 3]);
  });
});
