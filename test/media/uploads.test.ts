import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AppError } from "../../src/lib/errors";
import { MultipartReader } from "../../src/media/multipart";
import { attachUploadToPost } from "../../src/services/uploads/attach-upload";
import { signUploadUrl } from "../../src/services/uploads/signing";
import { storeSignedUpload } from "../../src/services/uploads/store-upload";
import { describeAuth } from "../support/auth-cases";
import { call, createTestWorkspace, ISO_OFFSET, type TestWorkspace, UUID } from "../support/harness";
import {
  bucketKeys,
  GIF_1X1,
  insertPost,
  jpegHeader,
  makePng,
  mediaForm,
  mediaRows,
  workspaceContext,
} from "./fixtures";
import { clipMov, paddedVideo } from "./videos";

let ipCounter = 0;
/** Every test uses its own client IPs so the per-IP windows do not interfere. */
const newIp = () => `203.0.113.${++ipCounter}`;

async function issue(ws: TestWorkspace) {
  const res = await ws.api("POST", "/api/uploads");
  expect(res.status, res.text).toBe(201);
  return res.body as {
    upload_token: string;
    upload_url: string;
    expires_at: string;
    max_bytes: number;
    field_name: string;
  };
}

const pathOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

const send = (path: string, body: BodyInit | undefined, ip: string) =>
  call("POST", path, { rawBody: body, headers: { "CF-Connecting-IP": ip } });

const INVALID = { message: "Invalid signature." };

describe("POST /api/uploads (issue a signed URL)", () => {
  describeAuth("POST", "/api/uploads");

  it("returns a signed one-shot URL and its limits", async () => {
    const ws = await createTestWorkspace();
    const started = Math.floor(Date.now() / 1000);
    const body = await issue(ws);
    const finished = Math.floor(Date.now() / 1000); // a slow request may cross a second boundary, or two
    expect(body).toEqual({
      upload_token: expect.stringMatching(UUID),
      upload_url: expect.any(String),
      expires_at: expect.stringMatching(ISO_OFFSET),
      max_bytes: 52428800,
      field_name: "media",
    });
    const url = new URL(body.upload_url);
    expect(url.origin).toBe("https://api.test");
    expect(url.pathname).toBe(`/api/uploads/${body.upload_token}`);
    expect([...url.searchParams.keys()]).toEqual(["expires", "workspace_id", "signature"]);
    expect(url.searchParams.get("workspace_id")).toBe(ws.workspaceId);
    const expires = Number(url.searchParams.get("expires"));
    expect(expires).toBeGreaterThanOrEqual(started + 900);
    expect(expires).toBeLessThanOrEqual(finished + 900);
    expect(Date.parse(body.expires_at)).toBe(expires * 1000);
    expect(url.searchParams.get("signature")).toMatch(/^[0-9a-f]{64}$/);
    // A fresh token each time.
    expect((await issue(ws)).upload_token).not.toBe(body.upload_token);
  });
});

describe("POST /api/uploads/{token} (signed upload)", () => {
  it("stores the file as a workspace asset on no post (201), then refuses the same URL (409)", async () => {
    const ws = await createTestWorkspace();
    const { upload_token, upload_url } = await issue(ws);
    const ip = newIp();
    const res = await send(pathOf(upload_url), mediaForm(await makePng(3, 2), "screen shot.png"), ip);
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      upload_token,
      media_id: expect.stringMatching(UUID),
      type: "image",
      mime_type: "image/jpeg",
      original_filename: "screen shot.png",
    });
    const rows = await mediaRows(ws.workspaceId);
    expect(rows).toEqual([
      expect.objectContaining({
        id: res.body.media_id,
        upload_token,
        type: "image",
        mime_type: "image/jpeg",
        width: 3,
        height: 2,
      }),
    ]);
    const links = await env.DB.prepare("SELECT * FROM post_media WHERE media_id = ?").bind(res.body.media_id).all();
    expect(links.results).toEqual([]);
    expect(await env.MEDIA_BUCKET.head(rows[0]!.path as string)).not.toBeNull();

    const again = await send(pathOf(upload_url), mediaForm(GIF_1X1, "b.gif"), ip);
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: "This upload URL has already been used." });
    expect(await mediaRows(ws.workspaceId)).toHaveLength(1);
  });

  it("answers 404 for a token that is not a UUID, before anything else", async () => {
    const ip = newIp();
    for (let i = 0; i < 12; i++) {
      const res = await send("/api/uploads/not-a-uuid?expires=1&workspace_id=x&signature=y", mediaForm(GIF_1X1), ip);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: "Not found." });
    }
  });

  it("answers 403 Invalid signature for any missing, altered or added parameter", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const { upload_url } = await issue(ws);
    const u = new URL(upload_url);
    const q = Object.fromEntries(u.searchParams);
    const build = (params: [string, string][], token = u.pathname.split("/").pop()) =>
      `/api/uploads/${token}?${params.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`;
    const tampered = [
      build([
        ["workspace_id", q.workspace_id!],
        ["signature", q.signature!],
      ]), // expires missing
      build([
        ["expires", q.expires!],
        ["signature", q.signature!],
      ]), // workspace_id missing
      build([
        ["expires", q.expires!],
        ["workspace_id", q.workspace_id!],
      ]), // signature missing
      build([
        ["expires", String(Number(q.expires) + 3600)],
        ["workspace_id", q.workspace_id!],
        ["signature", q.signature!],
      ]),
      build([
        ["expires", q.expires!],
        ["workspace_id", other.workspaceId],
        ["signature", q.signature!],
      ]),
      build([
        ["expires", q.expires!],
        ["workspace_id", q.workspace_id!],
        ["signature", `${q.signature!.slice(0, 63)}${q.signature!.endsWith("0") ? "1" : "0"}`], // last digit changed
      ]),
      build([
        ["expires", q.expires!],
        ["workspace_id", q.workspace_id!],
        ["signature", q.signature!.toUpperCase()],
      ]),
      build([
        ["expires", q.expires!],
        ["workspace_id", q.workspace_id!],
        ["signature", q.signature!],
        ["extra", "1"],
      ]),
      build([
        ["expires", q.expires!],
        ["workspace_id", q.workspace_id!],
        ["signature", q.signature!],
        ["expires", q.expires!],
      ]),
      build(
        [
          ["expires", q.expires!],
          ["workspace_id", q.workspace_id!],
          ["signature", q.signature!],
        ],
        crypto.randomUUID(),
      ),
    ];
    for (const path of tampered) {
      const res = await send(path, mediaForm(GIF_1X1), newIp());
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual(INVALID);
    }
    expect(await mediaRows(ws.workspaceId)).toEqual([]);
    // The untouched URL still works (no parameter order requirement for the check, only for the signed message).
    const ok = await send(
      build([
        ["signature", q.signature!],
        ["workspace_id", q.workspace_id!],
        ["expires", q.expires!],
      ]),
      mediaForm(GIF_1X1),
      newIp(),
    );
    expect(ok.status).toBe(201);
  });

  it("answers 403 for an expired URL and 404 for a workspace that is gone", async () => {
    const ws = await createTestWorkspace();
    const key = env.UPLOAD_SIGNING_KEY!;
    const past = Math.floor(Date.now() / 1000) - 1;
    const expired = await signUploadUrl(key, "https://api.test", crypto.randomUUID(), past, ws.workspaceId);
    const res = await send(pathOf(expired), mediaForm(GIF_1X1), newIp());
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: "Upload URL has expired." });

    const future = Math.floor(Date.now() / 1000) + 600;
    const gone = await signUploadUrl(key, "https://api.test", crypto.randomUUID(), future, crypto.randomUUID());
    const res2 = await send(pathOf(gone), mediaForm(GIF_1X1), newIp());
    expect(res2.status).toBe(404);
    expect(res2.body).toEqual({ message: "Not found." });
  });

  it("answers 422 for a missing file, an unsupported type or an over-cap file, and the URL stays usable", async () => {
    const ws = await createTestWorkspace();
    const { upload_url, upload_token } = await issue(ws);
    const path = pathOf(upload_url);
    const ip = newIp();
    const before = await bucketKeys();
    const err = (m: string) => ({ message: m, errors: { media: [m] } });
    expect((await send(path, undefined, ip)).body).toEqual(err("The media field is required."));
    const noFile = new FormData();
    noFile.append("file", new File([GIF_1X1], "a.gif"));
    expect((await send(path, noFile, ip)).body).toEqual(err("The media field is required."));
    const pdf = await send(path, mediaForm(new TextEncoder().encode("%PDF-1.4"), "a.pdf"), ip);
    expect(pdf.status).toBe(422);
    expect(pdf.body).toEqual(err("The media field must be a file of type: jpeg, png, gif, webp, mp4, mov."));
    const bigImage = await send(path, mediaForm(jpegHeader(10, 10, 10 * 1024 * 1024)), ip);
    expect(bigImage.body).toEqual(err("The media field must not be greater than 10240 kilobytes."));
    const bigVideo = await send(path, mediaForm(paddedVideo(50 * 1024 * 1024 + 1)), ip);
    expect(bigVideo.status).toBe(422);
    expect(bigVideo.body).toEqual(err("The media field must not be greater than 51200 kilobytes."));
    expect(await bucketKeys()).toEqual(before);

    const ok = await send(path, mediaForm(clipMov.bytes, "clip.mov"), ip);
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({
      upload_token,
      media_id: expect.stringMatching(UUID),
      type: "video",
      mime_type: "video/quicktime",
      original_filename: "clip.mov",
    });
  }, 120_000);

  it("limits each IP to 10 requests a minute (every request counts), with Retry-After; another IP is unaffected", async () => {
    const ws = await createTestWorkspace();
    let path = "";
    for (let attempt = 0; attempt < 2; attempt++) {
      // A fresh URL per attempt: across a window boundary the eleventh request may succeed and spend its token.
      path = pathOf((await issue(ws)).upload_url);
      const ip = newIp();
      const minute = Math.floor(Date.now() / 60_000);
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) statuses.push((await send(`${path}x`, undefined, ip)).status);
      const eleventh = await send(path, mediaForm(GIF_1X1), ip);
      if (Math.floor(Date.now() / 60_000) !== minute) continue; // crossed a window boundary: try once more
      expect(statuses).toEqual(Array(10).fill(403));
      expect(eleventh.status).toBe(429);
      const retry = Number(eleventh.headers.get("Retry-After"));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      expect(eleventh.body).toEqual({ message: `Too many requests. Retry after ${retry} seconds.` });
      break;
    }
    const fresh = await send(path, mediaForm(GIF_1X1), newIp());
    expect(fresh.status).toBe(201);
  });

  it("lets exactly one of 20 simultaneous uploads with one token succeed: one Media row, one stored object", async () => {
    const ws = await createTestWorkspace();
    const { upload_url } = await issue(ws);
    const path = pathOf(upload_url);
    const before = await bucketKeys();
    const png = await makePng(8, 8);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => send(path, mediaForm(i % 2 ? png : GIF_1X1, `f${i}`), newIp())),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(19).fill(409)]);
    for (const r of results.filter((r) => r.status === 409))
      expect(r.body).toEqual({ message: "This upload URL has already been used." });
    const rows = await mediaRows(ws.workspaceId);
    expect(rows).toHaveLength(1);
    const after = await bucketKeys();
    expect(after.filter((k) => !before.includes(k))).toEqual([rows[0]!.path]);
  });
});

describe("a failed store", () => {
  it("releases the token and deletes the stored object", async () => {
    const token = crypto.randomUUID();
    const before = await bucketKeys();
    const { createDb } = await import("../../src/db/client");
    const { loadConfig } = await import("../../src/config");
    const service = {
      env,
      db: createDb(env.DB),
      config: loadConfig(env),
      now: () => Date.now(),
      requestId: "t",
      webhookOutbox: { recorded: false },
      origin: "https://api.test",
      waitUntil: () => {},
    };
    const form = MultipartReader.fromRequest(new Request("https://x/", { method: "POST", body: mediaForm(GIF_1X1) }));
    // A workspace that does not exist makes the D1 insert fail (foreign key) after the object was stored.
    const err = await storeSignedUpload(
      service,
      { token, workspaceId: crypto.randomUUID(), expiresAtMs: Date.now() + 60_000 },
      form,
    ).catch((e) => e);
    expect(String(err)).toMatch(/FOREIGN KEY/i);
    expect(await env.UPLOAD_GUARD.getByName(`upload-token:${token}`).tokenState(token)).toBeNull();
    expect(await bucketKeys()).toEqual(before);
  });
});

describe("UploadGuard token state", () => {
  it("claims once, gives a released token back, and keeps a spent one", async () => {
    const token = crypto.randomUUID();
    const stub = env.UPLOAD_GUARD.getByName(`upload-token:${token}`);
    const exp = Date.now() + 60_000;
    expect(await stub.claimToken(token, exp)).toBe(true);
    expect(await stub.claimToken(token, exp)).toBe(false);
    await stub.releaseToken(token);
    expect(await stub.tokenState(token)).toBeNull();
    expect(await stub.claimToken(token, exp)).toBe(true);
    await stub.spendToken(token);
    await stub.releaseToken(token); // a spent token is never given back
    expect(await stub.tokenState(token)).toBe("spent");
    expect(await stub.claimToken(token, exp)).toBe(false);
  });
});

describe("attachUploadToPost (MCP attach-media-from-upload-tool)", () => {
  async function uploaded(ws: TestWorkspace, bytes: Uint8Array) {
    const { upload_url, upload_token } = await issue(ws);
    const res = await send(pathOf(upload_url), mediaForm(bytes, "x"), newIp());
    expect(res.status).toBe(201);
    return { token: upload_token, mediaId: res.body.media_id as string };
  }
  const toolError = async (p: Promise<unknown>) => {
    const e = await p.then(
      () => null,
      (x) => x,
    );
    expect(e).toBeInstanceOf(AppError);
    return { code: (e as AppError).code, message: (e as AppError).message };
  };

  it("attaches once (idempotent) and applies the acceptance rule", async () => {
    const ws = await createTestWorkspace();
    const ctx = workspaceContext(ws);
    const image = await uploaded(ws, GIF_1X1);
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const first = await attachUploadToPost(ctx, { post_id: postId, upload_token: image.token });
    expect(first.post.id).toBe(postId);
    expect(first.post.media.map((m) => m.id)).toEqual([image.mediaId]);
    const second = await attachUploadToPost(ctx, { post_id: postId, upload_token: image.token });
    expect(second).toEqual(first);

    const videoOnly = await insertPost(ws, [{ platform: "tiktok", contentType: "tiktok_video" }]);
    expect(await toolError(attachUploadToPost(ctx, { post_id: videoOnly.postId, upload_token: image.token }))).toEqual({
      code: "validation",
      message: "No enabled platform on this post accepts this media type.",
    });
  });

  it("reports Post not found / Upload not found, also across workspaces", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const ctx = workspaceContext(ws);
    const mine = await uploaded(ws, GIF_1X1);
    const theirs = await uploaded(other, GIF_1X1);
    const { postId } = await insertPost(ws, []);
    const foreignPost = await insertPost(other, []);
    const post404 = { code: "not_found", message: "Post not found." };
    const upload404 = { code: "not_found", message: "Upload not found." };
    expect(await toolError(attachUploadToPost(ctx, { post_id: foreignPost.postId, upload_token: mine.token }))).toEqual(
      post404,
    );
    expect(await toolError(attachUploadToPost(ctx, { post_id: "nope", upload_token: mine.token }))).toEqual(post404);
    expect(await toolError(attachUploadToPost(ctx, { post_id: postId, upload_token: theirs.token }))).toEqual(
      upload404,
    );
    expect(await toolError(attachUploadToPost(ctx, { post_id: postId, upload_token: crypto.randomUUID() }))).toEqual(
      upload404,
    );
    expect(await toolError(attachUploadToPost(ctx, { post_id: postId, upload_token: "x" }))).toEqual(upload404);
  });
});
