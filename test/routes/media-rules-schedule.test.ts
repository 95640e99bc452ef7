import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { insertPost } from "../media/fixtures";
import { createTestWorkspace } from "../support/harness";

/**
 * Issue 16: schedule time (PUT status=scheduled) and the preview refuse every file that cannot be published and
 * cannot be fitted, naming the platform, the rule and the file; images that only need fitting pass.
 */
interface MediaSeed {
  type: "image" | "video";
  mime: string;
  name: string;
  size: number;
  width: number;
  height: number;
  seconds?: number;
}

async function attach(ws: { workspaceId: string }, postId: string, items: MediaSeed[]): Promise<void> {
  const now = Date.now();
  await env.DB.batch(
    items.flatMap((m, i) => {
      const id = crypto.randomUUID();
      return [
        env.DB.prepare(
          "INSERT INTO media (id, workspace_id, path, type, mime_type, original_filename, size, width, height, duration_seconds, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ).bind(
          id,
          ws.workspaceId,
          `medias/${id}.${m.type === "image" ? "jpg" : "mp4"}`,
          m.type,
          m.mime,
          m.name,
          m.size,
          m.width,
          m.height,
          m.seconds ?? null,
          now,
        ),
        env.DB.prepare("INSERT INTO post_media (post_id, media_id, position) VALUES (?, ?, ?)").bind(postId, id, i),
      ];
    }),
  );
}

const MB = 1024 * 1024;
const phone: MediaSeed = {
  type: "image",
  mime: "image/jpeg",
  name: "phone.jpg",
  size: 9 * MB,
  width: 4032,
  height: 3024,
};
const gif: MediaSeed = { type: "image", mime: "image/gif", name: "party.gif", size: 2 * MB, width: 480, height: 270 };
const longClip: MediaSeed = {
  type: "video",
  mime: "video/mp4",
  name: "long.mp4",
  size: 40 * MB,
  width: 1920,
  height: 1080,
  seconds: 200,
};
const future = () => new Date(Date.now() + 86_400_000).toISOString();

describe("schedule-time media rules (issue 16)", () => {
  it("a phone photo (9 MB, 12 MP) schedules for every image network: it is fitted, not refused", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [
      { platform: "x", contentType: "x_post" },
      { platform: "bluesky", contentType: "bluesky_post" },
      { platform: "mastodon", contentType: "mastodon_post" },
      { platform: "instagram", contentType: "instagram_feed" },
      { platform: "threads", contentType: "threads_post" },
      { platform: "tiktok", contentType: "tiktok_photo" },
      { platform: "facebook", contentType: "facebook_post" },
      { platform: "linkedin", contentType: "linkedin_post" },
    ]);
    await attach(ws, postId, [phone]);
    const res = await ws.api("PUT", `/api/posts/${postId}`, { status: "scheduled", scheduled_at: future() });
    expect([res.status, res.body.status]).toEqual([200, "scheduled"]);
  });

  it("refuses what cannot be fitted, one message per rule, naming the platform and the file", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [
      { platform: "x", contentType: "x_post" },
      { platform: "threads", contentType: "threads_post" },
      { platform: "bluesky", contentType: "bluesky_post" },
    ]);
    await attach(ws, postId, [gif, longClip]);
    const res = await ws.api("PUT", `/api/posts/${postId}`, { status: "scheduled", scheduled_at: future() });
    const media = [
      "X: Post cannot combine images and videos (1 image and 1 video attached).",
      "X: Post allows a GIF only on its own (2 media items attached).",
      "X: Post needs a video between 0.5 s and 140 s long; long.mp4 is 200 s.",
      "Threads: Post does not accept GIF images (party.gif).",
      "Bluesky: Post cannot combine images and videos (1 image and 1 video attached).",
      "Bluesky: Post accepts GIFs of at most 1,000,000 bytes; party.gif is 2 MB (GIFs are not re-encoded).",
      "Bluesky: Post needs a video at most 180 s long; long.mp4 is 200 s.",
    ];
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: `${media[0]} (and ${media.length - 1} more errors)`, errors: { media } });
  });

  it("instagram_feed requires media (decisions §13)", async () => {
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "instagram", contentType: "instagram_feed" }]);
    const res = await ws.api("PUT", `/api/posts/${postId}`, { status: "scheduled", scheduled_at: future() });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "Instagram: Feed Post requires at least one media item.",
      errors: { media: ["Instagram: Feed Post requires at least one media item."] },
    });
  });

  it("the preview lists the same problems per row", async () => {
    const ws = await createTestWorkspace();
    const { postId, rowIds } = await insertPost(ws, [
      { platform: "facebook", contentType: "facebook_reel" },
      { platform: "youtube", contentType: "youtube_short" },
    ]);
    await attach(ws, postId, [longClip]);
    const res = await ws.api("GET", `/api/posts/${postId}/preview`);
    expect(res.status).toBe(200);
    const row = (id: string, platform: string, contentType: string, max: number, problems: string[]) => ({
      post_platform_id: id,
      platform,
      content_type: contentType,
      content_length: 5,
      max_content_length: max,
      media_count: 1,
      max_media_count: 1,
      problems,
    });
    expect(res.body).toEqual([
      row(rowIds[0]!, "facebook", "facebook_reel", 10000, [
        "Facebook Page: Reel needs a video between 3 s and 90 s long; long.mp4 is 200 s.",
        "Facebook Page: Reel needs a video aspect ratio between 0.55:1 and 0.57:1; long.mp4 is 1920×1080.",
      ]),
      row(rowIds[1]!, "youtube", "youtube_short", 100, [
        "YouTube Shorts: Short needs a video at most 180 s long; long.mp4 is 200 s.",
        "YouTube Shorts: Short needs a video aspect ratio at most 1:1; long.mp4 is 1920×1080.",
      ]),
    ]);
  });
});
