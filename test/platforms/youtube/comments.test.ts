import { afterEach, describe, expect, it } from "vitest";
import type { CommentRequest, PublishResult } from "../../../src/platforms/types";
import { youtubeAdapter } from "../../../src/platforms/youtube/adapter";
import { memoryCheckpoint, testAccount, testAdapterContext } from "../../support/adapter-context";
import { failAfterHandling } from "../../support/fake-fetch";
import { platformRejection } from "../../support/fakes/fake-kit";
import {
  fakeYouTube,
  googleErrorResponse,
  QUOTA_EXCEEDED_MESSAGE,
  YOUTUBE_CHANNEL,
  type YouTubeFake,
} from "../../support/fakes/youtube";

/** Issue 20: a first comment under a YouTube Short (`commentThreads.insert`, scope youtube.force-ssl). */

let fake: YouTubeFake;
afterEach(() => fake?.stop());

const VIDEO = "Sh0rtSeeded";
const on: PublishResult = { platformPostId: VIDEO, platformUrl: `https://youtube.com/shorts/${VIDEO}` };
const account = () => testAccount("youtube", { platformUserId: YOUTUBE_CHANNEL });
const comment = (content: string, extra: Partial<CommentRequest> = {}): CommentRequest => ({
  key: `${crypto.randomUUID()}:c`,
  on,
  contentType: "youtube_short",
  content,
  meta: {},
  account: account(),
  ...extra,
});
const setup = (options: Parameters<typeof fakeYouTube>[0] = {}) => {
  fake = fakeYouTube(options);
  fake.addVideo(VIDEO);
};

describe("YouTube first comments", () => {
  it("posts a top-level comment as the channel and returns its id and URL", async () => {
    setup();
    const result = await youtubeAdapter.comment!(testAdapterContext(), comment("Full video: https://example.com"));
    const [stored] = fake.comments;
    expect(result).toEqual({
      platformPostId: stored!.id,
      platformUrl: `https://www.youtube.com/watch?v=${VIDEO}&lc=${stored!.id}`,
    });
    expect(fake.comments).toEqual([
      {
        id: stored!.id,
        videoId: VIDEO,
        channelId: YOUTUBE_CHANNEL,
        authorChannelId: YOUTUBE_CHANNEL,
        text: "Full video: https://example.com",
        publishedAt: expect.any(String),
      },
    ]);
    expect(fake.calls.at(-1)).toEqual({
      method: "POST",
      path: "/youtube/v3/commentThreads?part=snippet",
      headers: { authorization: "Bearer access-token", "content-type": "application/json; charset=UTF-8" },
      json: {
        snippet: {
          channelId: YOUTUBE_CHANNEL,
          videoId: VIDEO,
          topLevelComment: { snippet: { textOriginal: "Full video: https://example.com" } },
        },
      },
    });
  });

  it("a channel connected without youtube.force-ssl gets a clear permanent error on the comment", async () => {
    setup({ forceSslScope: false });
    expect(await platformRejection(youtubeAdapter.comment!(testAdapterContext(), comment("hi")))).toEqual({
      name: "PlatformError",
      kind: "permanent",
      message:
        "YouTube did not let this app comment: the channel was connected without the permission to manage comments (youtube.force-ssl). Reconnect the YouTube account and allow it to post comments.",
      retryAfterSeconds: undefined,
      status: 403,
    });
    expect(fake.comments).toEqual([]);
  });

  it("a comment whose answer was lost is found among the video's newest threads: no duplicate", async () => {
    setup();
    const checkpoint = memoryCheckpoint();
    const req = comment("Link below", { checkpoint });
    failAfterHandling("POST", "/youtube/v3/commentThreads", { kind: "timeout" });
    expect(await platformRejection(youtubeAdapter.comment!(testAdapterContext(), req))).toMatchObject({
      kind: "transient",
    });
    expect(checkpoint.saves).toEqual([{ create_sent_at: expect.any(Number) }]);
    const [stored] = fake.comments;
    expect(await youtubeAdapter.comment!(testAdapterContext(), req)).toEqual({
      platformPostId: stored!.id,
      platformUrl: `https://www.youtube.com/watch?v=${VIDEO}&lc=${stored!.id}`,
    });
    expect(fake.comments).toHaveLength(1);
    expect(fake.calls.find((c) => c.method === "GET")!.path).toBe(
      `/youtube/v3/commentThreads?part=snippet&videoId=${VIDEO}&order=time&maxResults=20&textFormat=plainText`,
    );
  });

  it("comments turned off is permanent; quota is transient until the reset; a rejected token is auth", async () => {
    setup();
    fake.commentsDisabled.add(VIDEO);
    expect(await platformRejection(youtubeAdapter.comment!(testAdapterContext(), comment("a")))).toMatchObject({
      kind: "permanent",
      status: 403,
      message: "Comments are turned off on this YouTube video.",
    });
    fake.commentsDisabled.clear();
    fake.script.add("POST", "/youtube/v3/commentThreads", () =>
      googleErrorResponse(403, "quotaExceeded", QUOTA_EXCEEDED_MESSAGE),
    );
    const quota = await platformRejection(youtubeAdapter.comment!(testAdapterContext(), comment("a")));
    expect(quota).toMatchObject({ kind: "transient", status: 403, message: "The YouTube API daily quota is used up." });
    expect(quota.retryAfterSeconds).toBeGreaterThan(0);
    const revoked = { ...account(), credentials: { access_token: "revoked" } };
    expect(
      await platformRejection(youtubeAdapter.comment!(testAdapterContext(), comment("a", { account: revoked }))),
    ).toMatchObject({ kind: "auth", status: 401 });
    expect(fake.comments).toEqual([]);
  });
});
