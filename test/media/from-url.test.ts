import { describe, expect, it } from "vitest";
import { refusalReason } from "../../src/media/fetch-url";
import { describeAuth } from "../support/auth-cases";
import { fakeOrigin, outboundCalls } from "../support/fake-fetch";
import { createTestWorkspace } from "../support/harness";
import { bucketKeys, GIF_1X1, insertPost, jpegHeader, makePng, mediaRows } from "./fixtures";
import { limitVideo, phoneMp4 } from "./videos";

const CDN = "https://cdn.fake";

/** A fake CDN: files, redirects, errors and a slow response. */
async function cdn() {
  const png = await makePng(3, 3);
  const routes: Record<string, () => Response | Promise<Response>> = {
    "/photo.png": () => new Response(png, { headers: { "Content-Type": "image/png" } }),
    "/anim.gif": () => new Response(GIF_1X1),
    "/clip.mp4": () => new Response(phoneMp4.bytes, { headers: { "Content-Type": "video/mp4" } }),
    "/long.mp4": () => new Response(limitVideo(1920, 1080, 200).bytes, { headers: { "Content-Type": "video/mp4" } }),
    "/doc.pdf": () => new Response("%PDF-1.4 nope"),
    "/big.jpg": () => new Response(jpegHeader(10, 10, 10 * 1024 * 1024 + 10)),
    "/missing.png": () => new Response("no", { status: 404 }),
    "/hop1": () => new Response(null, { status: 302, headers: { Location: "/hop2" } }),
    "/hop2": () => new Response(null, { status: 301, headers: { Location: `${CDN}/hop3` } }),
    "/hop3": () => new Response(null, { status: 307, headers: { Location: "/anim.gif" } }),
    "/hop0": () => new Response(null, { status: 302, headers: { Location: "/hop1" } }),
    "/to-metadata": () =>
      new Response(null, { status: 302, headers: { Location: "http://169.254.169.254/latest/meta-data/" } }),
    "/to-localhost": () => new Response(null, { status: 302, headers: { Location: "http://localhost:8787/x.png" } }),
  };
  return fakeOrigin(CDN, (req) => {
    const route = routes[new URL(req.url).pathname];
    return route ? route() : new Response("no", { status: 404 });
  });
}

const u = (path: string) => `${CDN}${path}`;

describe("POST /api/posts/{post}/media/from-url", () => {
  describeAuth("POST", `/api/posts/${crypto.randomUUID()}/media/from-url`, { urls: ["https://cdn.fake/a.png"] });

  it("downloads concurrently, attaches successes in order and lists every failure", async () => {
    const stop = await cdn();
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const urls = [
      u("/photo.png"),
      u("/missing.png"),
      u("/clip.mp4"),
      u("/doc.pdf"),
      u("/big.jpg"),
      u("/hop1"),
      "http://127.0.0.1/x.png",
      u("/to-metadata"),
      "https://down.fake/a.gif",
    ];
    const down = fakeOrigin("https://down.fake", () => {
      throw new TypeError("Network connection lost.");
    });
    const before = outboundCalls.length;
    const res = await ws.api("POST", `/api/posts/${postId}/media/from-url`, { urls });
    stop();
    down();
    const calls = outboundCalls.slice(before).map((c) => c.url);
    expect(calls).not.toContain("http://127.0.0.1/x.png");
    expect(calls.some((c) => c.startsWith("http://169.254"))).toBe(false);
    expect(res.status, res.text).toBe(200);
    expect(res.body.attached_count).toBe(3);
    expect(res.body.failed_urls).toEqual([
      u("/missing.png"),
      u("/doc.pdf"),
      u("/big.jpg"),
      "http://127.0.0.1/x.png",
      u("/to-metadata"),
      "https://down.fake/a.gif",
    ]);
    expect(res.body.post.id).toBe(postId);
    expect(res.body.post.media.map((m: Record<string, unknown>) => [m.type, m.mime_type, m.original_filename])).toEqual(
      [
        ["image", "image/jpeg", "photo.png"],
        ["video", "video/mp4", "clip.mp4"],
        ["image", "image/gif", "anim.gif"],
      ],
    );
    expect(await mediaRows(ws.workspaceId)).toHaveLength(3);
  }, 120_000);

  it("refuses more than 3 redirects and redirects to private addresses", async () => {
    const stop = await cdn();
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, []);
    const res = await ws.api("POST", `/api/posts/${postId}/media/from-url`, {
      urls: [u("/hop0"), u("/to-localhost"), u("/hop1")],
    });
    stop();
    expect(res.status).toBe(200);
    expect(res.body.attached_count).toBe(1);
    expect(res.body.failed_urls).toEqual([u("/hop0"), u("/to-localhost")]);
  });

  it("lists files no enabled platform accepts", async () => {
    const stop = await cdn();
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "youtube", contentType: "youtube_short" }]);
    const before = await bucketKeys();
    const res = await ws.api("POST", `/api/posts/${postId}/media/from-url`, {
      urls: [u("/photo.png"), u("/anim.gif")],
    });
    stop();
    expect(res.status).toBe(200);
    expect(res.body.attached_count).toBe(0);
    expect(res.body.failed_urls).toEqual([u("/photo.png"), u("/anim.gif")]);
    expect(res.body.post.media).toEqual([]);
    expect(await bucketKeys()).toEqual(before);
  });

  it("validates urls: 1–10 http(s) URL strings", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, []);
    const post = (body: unknown) => ws.api("POST", `/api/posts/${postId}/media/from-url`, body);
    expect((await post({})).body).toEqual({
      message: "The urls field is required.",
      errors: { urls: ["The urls field is required."] },
    });
    expect((await post({ urls: [] })).body).toEqual({
      message: "The urls field must have at least 1 item.",
      errors: { urls: ["The urls field must have at least 1 item."] },
    });
    const eleven = Array.from({ length: 11 }, (_, i) => u(`/${i}.png`));
    expect((await post({ urls: eleven })).body).toEqual({
      message: "The urls field must not have more than 10 items.",
      errors: { urls: ["The urls field must not have more than 10 items."] },
    });
    const bad = await post({ urls: [u("/ok.png"), "ftp://cdn.fake/a.png", "not a url", 5] });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({
      message: "The urls.1 field must be a valid URL. (and 2 more errors)",
      errors: {
        "urls.1": ["The urls.1 field must be a valid URL."],
        "urls.2": ["The urls.2 field must be a valid URL."],
        "urls.3": ["The urls.3 field must be a string."],
      },
    });
  });

  it("answers 404 for another workspace's post", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const { postId } = await insertPost(other, []);
    const res = await ws.api("POST", `/api/posts/${postId}/media/from-url`, { urls: [u("/photo.png")] });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: "Not found." });
  });
});

describe("refusalReason", () => {
  const refused = (url: string) => refusalReason(new URL(url), false) !== null;
  it("refuses loopback, private, link-local, metadata and internal names", () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://2130706433/", // 127.0.0.1 as a number
      "http://0x7f.1/",
      "http://10.1.2.3/",
      "http://172.16.0.1/",
      "http://192.168.1.1/",
      "http://169.254.169.254/latest/meta-data/",
      "http://100.64.0.1/",
      "http://0.0.0.0/",
      "http://[::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://[::ffff:a9fe:a9fe]/",
      "http://[fe80::1]/",
      "http://[fd00::1]/",
      "http://localhost/",
      "http://api.localhost/",
      "http://metadata.google.internal/",
      "http://printer.local/",
      "http://intranet/",
      "ftp://example.com/",
      "https://user:pass@example.com/",
    ]) {
      expect(refused(url), url).toBe(true);
    }
  });
  it("allows public hosts, and everything when private is allowed", () => {
    for (const url of [
      "https://example.com/a.png",
      "http://8.8.8.8/",
      "http://[2606:4700::1111]/",
      "https://172.32.0.1/",
    ]) {
      expect(refused(url), url).toBe(false);
    }
    expect(refusalReason(new URL("http://127.0.0.1:8787/"), true)).toBeNull();
  });

  it("lists a file an enabled network can never publish as failed (issue 16), and stores nothing for it", async () => {
    const stop = await cdn();
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "facebook", contentType: "facebook_reel" }]);
    const before = await bucketKeys();
    const res = await ws.api("POST", `/api/posts/${postId}/media/from-url`, { urls: [u("/long.mp4"), u("/clip.mp4")] });
    stop();
    expect(res.status).toBe(200);
    expect([res.body.attached_count, res.body.failed_urls]).toEqual([1, [u("/long.mp4")]]);
    expect(res.body.post.media.map((m: { duration_seconds: number }) => m.duration_seconds)).toEqual([4.524]);
    expect((await bucketKeys()).length).toBe(before.length + 1);
  });
});
