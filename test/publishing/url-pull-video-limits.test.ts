import { afterEach, describe, expect, it } from "vitest";
import { checkFileRules } from "../../src/catalog/media-rules";
import { adapterFor } from "../../src/platforms";
import type { AdapterMedia, PublishRequest } from "../../src/platforms/types";
import { limitVideo, paddedVideo } from "../media/videos";
import { storeTestMedia, testAccount, testAdapterContext } from "../support/adapter-context";
import { platformRejection } from "../support/fakes/fake-kit";
import { fakeLinkedIn } from "../support/fakes/linkedin";
import { fakeFacebookGraph, fakeInstagramGraph } from "../support/fakes/meta";
import {
  type PulledVideo,
  pulledVideoRefusal,
  VIDEO_PULL_LIMITS,
  VIDEO_UPLOAD_LIMITS,
  type VideoPullLimits,
  videoRefusal,
} from "../support/fakes/pulled-media";
import { fakeThreads } from "../support/fakes/threads";
import { fakeTikTok } from "../support/fakes/tiktok";

/**
 * Issues 16/17: the fakes of the networks that pull videos by URL refuse what the network refuses (bytes, duration,
 * ratio, format, pixels — test/support/fakes/pulled-media.ts, from each network's docs). Videos are never
 * transcoded, so every such file must be refused at schedule time, by the catalog's rules (checkFileRules, the code
 * behind `PUT status=scheduled`, the preview and the media endpoints), before a network ever downloads it.
 *
 * The grid crosses, per content type, every documented boundary (just inside, at, just past) of each measure with
 * the others: whatever the network's fake refuses, the catalog refuses too.
 */
const MB = 1024 * 1024;

const targets: Array<{ platform: string; contentType: string; limits: VideoPullLimits }> = [
  { platform: "instagram", contentType: "instagram_feed", limits: VIDEO_PULL_LIMITS.instagramReel },
  { platform: "instagram", contentType: "instagram_carousel", limits: VIDEO_PULL_LIMITS.instagramReel },
  { platform: "instagram", contentType: "instagram_reel", limits: VIDEO_PULL_LIMITS.instagramReel },
  { platform: "instagram", contentType: "instagram_story", limits: VIDEO_PULL_LIMITS.instagramStory },
  { platform: "threads", contentType: "threads_post", limits: VIDEO_PULL_LIMITS.threads },
  { platform: "facebook", contentType: "facebook_post", limits: VIDEO_PULL_LIMITS.facebookVideo },
  { platform: "facebook", contentType: "facebook_reel", limits: VIDEO_PULL_LIMITS.facebookReel },
  { platform: "facebook", contentType: "facebook_story", limits: VIDEO_PULL_LIMITS.facebookStory },
  { platform: "tiktok", contentType: "tiktok_video", limits: VIDEO_PULL_LIMITS.tiktok },
  // LinkedIn is sent the bytes, and its fake measures them the same way.
  { platform: "linkedin", contentType: "linkedin_post", limits: VIDEO_UPLOAD_LIMITS.linkedin },
  { platform: "linkedin-page", contentType: "linkedin_page_post", limits: VIDEO_UPLOAD_LIMITS.linkedin },
];

/** Each limit, and a hair either side of it. */
const around = (values: Array<number | undefined>, step: number) =>
  [...new Set(values.filter((v): v is number => v !== undefined).flatMap((v) => [v - step, v, v + step]))].filter(
    (v) => v > 0,
  );

function grid(): PulledVideo[] {
  const all = [...Object.values(VIDEO_PULL_LIMITS), ...Object.values(VIDEO_UPLOAD_LIMITS)] as VideoPullLimits[];
  // 30 s is within every network's range: the other measures are crossed with it.
  const seconds = around(
    all.flatMap((l) => [l.minSeconds, l.maxSeconds]),
    0.01,
  ).concat([30]);
  const sizes = around(
    all.flatMap((l) => [l.maxBytes, l.minBytes]),
    1,
  ).concat([5 * MB]);
  const sides = around(
    all.flatMap((l) => [l.minShortSide, l.minLongSide, l.maxLongSide]),
    1,
  ).concat([1080, 1920]);
  const frames: Array<[number, number]> = [];
  for (const a of sides) for (const b of sides) frames.push([a, b]);
  // Ratios at each documented bound, with the other side a phone's.
  for (const r of all.flatMap((l) => [l.minAspect, l.maxAspect]).filter((v): v is number => v !== undefined)) {
    for (const h of [960, 1920, 3840]) for (const d of [-1, 0, 1]) frames.push([Math.round(r * h) + d, h]);
  }
  const out: PulledVideo[] = [];
  for (const mime of ["video/mp4", "video/quicktime"])
    for (const size of sizes)
      for (const durationSeconds of seconds) {
        // Sizes are crossed with the 30 s duration only (every network takes it), durations with a 5 MB file:
        // the grid stays small and each measure is still judged on its own by both sides, every frame included.
        if (size !== 5 * MB && durationSeconds !== 30) continue;
        for (const [width, height] of frames) out.push({ mime, size, durationSeconds, width, height });
      }
  return out;
}

describe("videos a URL-pull network refuses never reach it (issues 16/17)", () => {
  it.each(targets)("$contentType: every video the $platform fake refuses is refused at schedule time", (t) => {
    const files = grid();
    let refusedByNetwork = 0;
    const missed: string[] = [];
    for (const f of files) {
      const why = videoRefusal(f, t.limits);
      if (!why) continue;
      refusedByNetwork++;
      const problems = checkFileRules(t.platform, t.contentType, {
        type: "video",
        mimeType: f.mime,
        size: f.size,
        width: f.width,
        height: f.height,
        durationSeconds: f.durationSeconds,
        originalFilename: "clip.mp4",
      });
      if (problems.length === 0)
        missed.push(`${why}: ${f.mime} ${f.size} B ${f.durationSeconds} s ${f.width}×${f.height}`);
    }
    expect(refusedByNetwork).toBeGreaterThan(100);
    expect(missed.slice(0, 20)).toEqual([]);
  });
});

/**
 * End to end, per network: a real MP4 past one of its rules, stored in R2 and handed to the adapter by URL, is
 * downloaded by the fake and refused with the network's own answer; the row fails with a message that says why,
 * and nothing is published. The same file is refused at schedule time with a message naming the platform and the
 * rule; a file within the rules publishes.
 */
/** A limit fixture (test/media/videos.ts limitVideo: ffmpeg H.264, a still picture): sides and duration. */
interface Spec {
  width: number;
  height: number;
  seconds: number;
}

interface Fake {
  /** What went live (LinkedIn's fake calls them posts). */
  published?: unknown[];
  posts?: unknown[];
  uninstall?: () => void;
  stop?: () => void;
}
const e2e: Array<{
  name: string;
  platform: string;
  contentType: string;
  meta?: Record<string, unknown>;
  fake: () => Fake;
  limits: VideoPullLimits;
  bad: Spec;
  good: Spec;
  /** File size, padded with a trailing `free` box (the file as made unless the network has a floor). */
  bytes?: number;
  /** The adapter's (so the row's) permanent failure for the file past the rule, and the HTTP status behind it. */
  failure: string;
  status?: number;
  /** The schedule-time refusal of the same file. */
  schedule: string;
}> = [
  {
    name: "Instagram reel 16 min",
    platform: "instagram",
    contentType: "instagram_reel",
    fake: fakeInstagramGraph,
    limits: VIDEO_PULL_LIMITS.instagramReel,
    bad: { width: 1080, height: 1920, seconds: 960 },
    good: { width: 1080, height: 1920, seconds: 900 },
    failure: "Instagram does not support this video format.",
    schedule: "Instagram: Reel needs a video between 3 s and 900 s long; clip.mp4 is 960 s.",
  },
  {
    name: "Instagram story 61 s",
    platform: "instagram",
    contentType: "instagram_story",
    fake: fakeInstagramGraph,
    limits: VIDEO_PULL_LIMITS.instagramStory,
    bad: { width: 1080, height: 1920, seconds: 61 },
    good: { width: 1080, height: 1920, seconds: 60 },
    failure: "Instagram does not support this video format.",
    schedule: "Instagram: Story needs a video between 3 s and 60 s long; clip.mp4 is 61 s.",
  },
  {
    name: "Threads 301 s",
    platform: "threads",
    contentType: "threads_post",
    fake: fakeThreads,
    limits: VIDEO_PULL_LIMITS.threads,
    bad: { width: 1080, height: 1920, seconds: 301 },
    good: { width: 1080, height: 1920, seconds: 300 },
    failure: "Threads could not process the media: Invalid duration.",
    schedule: "Threads: Post needs a video at most 300 s long; clip.mp4 is 301 s.",
  },
  {
    name: "Threads 1:101",
    platform: "threads",
    contentType: "threads_post",
    fake: fakeThreads,
    limits: VIDEO_PULL_LIMITS.threads,
    bad: { width: 19, height: 1920, seconds: 12.5 },
    good: { width: 20, height: 1920, seconds: 12.5 },
    failure: "Threads could not process the media: Invalid aspec ratio.",
    schedule: "Threads: Post needs a video aspect ratio between 0.01:1 and 10:1; clip.mp4 is 19×1920.",
  },
  {
    name: "Facebook reel square",
    platform: "facebook",
    contentType: "facebook_reel",
    fake: fakeFacebookGraph,
    limits: VIDEO_PULL_LIMITS.facebookReel,
    bad: { width: 1080, height: 1080, seconds: 30 },
    good: { width: 540, height: 960, seconds: 90 },
    failure: "The video must have a 9:16 aspect ratio.",
    schedule: "Facebook Page: Reel needs a video aspect ratio between 0.55:1 and 0.57:1; clip.mp4 is 1080×1080.",
  },
  {
    name: "Facebook story 61 s",
    platform: "facebook",
    contentType: "facebook_story",
    fake: fakeFacebookGraph,
    limits: VIDEO_PULL_LIMITS.facebookStory,
    bad: { width: 1080, height: 1920, seconds: 61 },
    good: { width: 1080, height: 1920, seconds: 60 },
    failure: "The video must be between 3 and 90 seconds long (60 seconds for a story).",
    status: 400,
    schedule: "Facebook Page: Story needs a video between 3 s and 60 s long; clip.mp4 is 61 s.",
  },
  {
    name: "Facebook video 241 min",
    platform: "facebook",
    contentType: "facebook_post",
    fake: fakeFacebookGraph,
    limits: VIDEO_PULL_LIMITS.facebookVideo,
    bad: { width: 1920, height: 1080, seconds: 241 * 60 },
    good: { width: 1920, height: 1080, seconds: 240 * 60 },
    failure: "The video is longer than 240 minutes.",
    status: 400,
    schedule: "Facebook Page: Post needs a video at most 14400 s long; clip.mp4 is 14460 s.",
  },
  {
    name: "TikTok pulled 4097 px",
    platform: "tiktok",
    contentType: "tiktok_video",
    meta: { video_source: "PULL_FROM_URL", privacy_level: "SELF_ONLY" },
    fake: () => fakeTikTok({ statuses: ["PROCESSING_DOWNLOAD", "PUBLISH_COMPLETE"] }),
    limits: VIDEO_PULL_LIMITS.tiktok,
    bad: { width: 2304, height: 4097, seconds: 30 },
    good: { width: 2304, height: 4096, seconds: 600 },
    failure: "TikTok rejected the picture size.",
    schedule: "TikTok: Video needs a video at most 4096 pixels on its longer side; clip.mp4 is 2304×4097.",
  },
  {
    name: "LinkedIn 2 s (uploaded bytes)",
    platform: "linkedin",
    contentType: "linkedin_post",
    fake: () => Object.assign(fakeLinkedIn(), { partSize: 64 * 1024 }), // 2 parts, as LinkedIn's 4 MiB would be
    limits: VIDEO_UPLOAD_LIMITS.linkedin,
    bad: { width: 1080, height: 1920, seconds: 2 },
    good: { width: 1080, height: 1920, seconds: 3 },
    bytes: 80_000,
    failure: "LinkedIn could not process the video: VIDEO_DURATION_OUT_OF_RANGE",
    schedule: "LinkedIn: Post needs a video between 3 s and 1800 s long; clip.mp4 is 2 s.",
  },
];

let running: Fake | undefined;
afterEach(() => {
  running?.uninstall?.();
  running?.stop?.();
  running = undefined;
});

async function storedVideo(spec: Spec, bytes?: number): Promise<AdapterMedia> {
  const video = limitVideo(spec.width, spec.height, spec.seconds);
  const stored = await storeTestMedia("video", bytes ? paddedVideo(bytes, video) : video.bytes);
  return { ...stored, originalFilename: "clip.mp4" } as AdapterMedia;
}

describe("a video past a URL-pull network's rules fails clearly, and is refused at schedule time (issues 16/17)", () => {
  it.each(e2e)("$name", async (c) => {
    running = c.fake();
    const adapter = adapterFor(c.platform)!;
    const request = (media: AdapterMedia): PublishRequest => ({
      postPlatformId: crypto.randomUUID(),
      contentType: c.contentType,
      content: "Clip",
      media: [media],
      meta: c.meta ?? {},
      account: testAccount(c.platform as never, { platformUserId: "17841400000000001" }),
    });
    const bad = await storedVideo(c.bad, c.bytes);
    expect(await pulledVideoRefusal(bad.url, c.limits)).not.toBeNull();
    const refused = await platformRejection(adapter.publish(testAdapterContext(), request(bad)));
    expect(refused).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message: c.failure,
      retryAfterSeconds: undefined,
      status: c.status,
    });
    const live = () => running?.published ?? running?.posts ?? [];
    expect(live()).toEqual([]);
    const problems = checkFileRules(c.platform, c.contentType, {
      type: "video",
      mimeType: "video/mp4",
      size: bad.size,
      width: c.bad.width,
      height: c.bad.height,
      durationSeconds: c.bad.seconds,
      originalFilename: "clip.mp4",
    });
    expect(problems).toEqual([c.schedule]);
    const good = await storedVideo(c.good, c.bytes);
    expect(await pulledVideoRefusal(good.url, c.limits)).toBeNull();
    const published = await adapter.publish(testAdapterContext(), request(good));
    expect(published.platformPostId).toEqual(expect.any(String));
    if (c.platform !== "tiktok") expect(live()).toHaveLength(1);
  });
});
