import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { FetchRefusedError, fetchMedia } from "../../src/media/fetch-url";
import { fakeOrigin } from "../support/fake-fetch";

const get = (path: string, headers: Record<string, string> = {}, method = "GET") =>
  exports.default.fetch(new Request(`https://api.test${path}`, { method, headers }));

async function stored(bytes: Uint8Array, ext = "mp4", type = "video/mp4") {
  const key = `medias/${crypto.randomUUID()}.${ext}`;
  await env.MEDIA_BUCKET.put(key, bytes, { httpMetadata: { contentType: type } });
  return key;
}

const bytes = Uint8Array.from({ length: 1000 }, (_, i) => i & 255);

describe("GET /media/medias/<file>", () => {
  it("serves the object with Content-Type, ETag, length and long-lived caching", async () => {
    const key = await stored(bytes);
    const res = await get(`/media/${key}`);
    expect(res.status).toBe(200);
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes);
    expect(res.headers.get("Content-Type")).toBe("video/mp4");
    expect(res.headers.get("Content-Length")).toBe("1000");
    expect(res.headers.get("ETag")).toMatch(/^"[0-9a-f]+"$/);
    expect(res.headers.get("Cache-Control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("Accept-Ranges")).toBe("bytes");
    expect(res.headers.get("X-Request-Id")).toBeTruthy();

    const head = await get(`/media/${key}`, {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.headers.get("Content-Length")).toBe("1000");
    expect(await head.text()).toBe("");
  });

  it("marks every answer nosniff with a sandboxing CSP, and types it by its extension, not its metadata", async () => {
    // An object whose metadata claims HTML (written by anything but the pipeline) is still served as a JPEG.
    const key = `medias/${crypto.randomUUID()}.jpg`;
    await env.MEDIA_BUCKET.put(key, "<script>alert(1)</script>", { httpMetadata: { contentType: "text/html" } });
    const etag = (await env.MEDIA_BUCKET.head(key))!.httpEtag;
    for (const [headers, method, status] of [
      [{}, "GET", 200],
      [{}, "HEAD", 200],
      [{ Range: "bytes=0-3" }, "GET", 206],
      [{ Range: "bytes=999-" }, "GET", 416],
      [{ "If-None-Match": etag }, "GET", 304],
    ] as const) {
      const res = await get(`/media/${key}`, headers, method);
      await res.arrayBuffer();
      expect(res.status).toBe(status);
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(res.headers.get("Content-Security-Policy")).toBe("default-src 'none'; sandbox");
      expect(res.headers.get("Content-Type")).toBe("image/jpeg");
    }
  });

  it("answers ranges with 206 and Content-Range, and unsatisfiable ones with 416", async () => {
    const key = await stored(bytes);
    const cases: [string, number, number][] = [
      ["bytes=0-99", 0, 99],
      ["bytes=900-", 900, 999],
      ["bytes=-10", 990, 999],
      ["bytes=990-5000", 990, 999],
    ];
    for (const [range, start, end] of cases) {
      const res = await get(`/media/${key}`, { Range: range });
      expect(res.status, range).toBe(206);
      expect(res.headers.get("Content-Range")).toBe(`bytes ${start}-${end}/1000`);
      expect(res.headers.get("Content-Length")).toBe(String(end - start + 1));
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes.subarray(start, end + 1));
    }
    const bad = await get(`/media/${key}`, { Range: "bytes=1000-" });
    expect(bad.status).toBe(416);
    expect(bad.headers.get("Content-Range")).toBe("bytes */1000");
  });

  it("answers If-None-Match with 304", async () => {
    const key = await stored(bytes, "jpg", "image/jpeg");
    const first = await get(`/media/${key}`);
    await first.arrayBuffer();
    const etag = first.headers.get("ETag")!;
    const res = await get(`/media/${key}`, { "If-None-Match": etag });
    expect(res.status).toBe(304);
    expect(res.headers.get("ETag")).toBe(etag);
  });

  it("answers 404 JSON for unknown objects and keys outside medias/<uuid>.<ext>", async () => {
    await env.MEDIA_BUCKET.put("medias/secret.txt", "x");
    for (const path of [
      `/media/medias/${crypto.randomUUID()}.jpg`,
      "/media/medias/secret.txt",
      "/media/medias/..%2Fx",
    ]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({ message: "Not found." });
    }
  });
});

describe("fetchMedia", () => {
  it("times out a slow download", async () => {
    const stop = fakeOrigin(
      "https://slow.fake",
      () => new Response(new ReadableStream({ pull: () => new Promise(() => {}) })),
    );
    const fetched = await fetchMedia("https://slow.fake/a.mp4", { timeoutMs: 50, allowPrivate: false });
    const err = await fetched.source.read().catch((e) => e);
    fetched.done();
    stop();
    expect(err).toBeInstanceOf(FetchRefusedError);
    expect(err.message).toBe("Timed out.");
  });
});
