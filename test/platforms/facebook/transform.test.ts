import { describe, expect, it } from "vitest";
import { attachedMediaBody, planFacebook, postUrl, reelState } from "../../../src/platforms/facebook/transform";
import { mediaItem } from "../../support/adapter-context";

const m = mediaItem;

describe("Facebook transform", () => {
  it("plans each content type", () => {
    expect(planFacebook("facebook_post", "Hi", [])).toEqual({ kind: "text", body: { message: "Hi", published: true } });
    expect(planFacebook("facebook_post", "Hi", [m("image")])).toEqual({
      kind: "photo",
      body: { url: "https://media.test/medias/1.jpg", message: "Hi", published: true },
    });
    expect(planFacebook("facebook_post", "", [m("video")])).toEqual({
      kind: "video",
      body: { file_url: "https://media.test/medias/1.mp4", description: undefined, published: true },
    });
    expect(planFacebook("facebook_post", "Hi", [m("image", 1), m("image", 2)])).toEqual({
      kind: "multi_photo",
      photos: [
        { url: "https://media.test/medias/1.jpg", published: false },
        { url: "https://media.test/medias/2.jpg", published: false },
      ],
      message: "Hi",
    });
    expect(planFacebook("facebook_reel", "R", [m("video")])).toEqual({
      kind: "reel",
      media: m("video"),
      description: "R",
    });
    expect(planFacebook("facebook_story", "ignored", [m("image")])).toEqual({
      kind: "photo_story",
      photo: { url: "https://media.test/medias/1.jpg", published: false },
    });
    expect(planFacebook("facebook_story", "", [m("video")])).toEqual({ kind: "video_story", media: m("video") });
    expect(() => planFacebook("facebook_reel", "", [m("image")])).toThrow("Facebook reels need a video.");
    expect(() => planFacebook("facebook_post", "  ", [])).toThrow("Facebook posts need text or media.");
  });

  it("attaches photos by media_fbid", () => {
    expect(attachedMediaBody(["1", "2"], undefined)).toEqual({
      message: undefined,
      attached_media: [{ media_fbid: "1" }, { media_fbid: "2" }],
      published: true,
    });
  });

  it("builds post URLs", () => {
    expect(postUrl("111", "111_222")).toBe("https://www.facebook.com/111/posts/222");
    expect(postUrl("111", "222")).toBe("https://www.facebook.com/111/posts/222");
    expect(postUrl("111", "111_222", "https://www.facebook.com/p/1")).toBe("https://www.facebook.com/p/1");
  });

  it("reads reel status payloads", () => {
    expect(
      reelState({
        status: {
          video_status: "processing",
          uploading_phase: { status: "complete" },
          processing_phase: { status: "in_progress" },
          publishing_phase: { status: "not_started" },
        },
        id: "1",
      }),
    ).toEqual({ state: "pending" });
    expect(reelState({ status: { video_status: "ready", publishing_phase: { status: "complete" } } })).toEqual({
      state: "ready",
    });
    expect(
      reelState({
        status: {
          video_status: "error",
          processing_phase: { status: "error", error: { message: "Bad aspect ratio" } },
        },
      }),
    ).toEqual({ state: "failed", reason: "Bad aspect ratio" });
    expect(reelState({ status: { video_status: "error" } })).toEqual({
      state: "failed",
      reason: "Facebook could not process the video.",
    });
  });
});
