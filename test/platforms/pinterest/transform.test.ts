import { describe, expect, it } from "vitest";
import {
  analyticsWindow,
  boardId,
  createPinBody,
  imageMediaSource,
  metricsFromAnalytics,
  metricTypes,
  multipartPlan,
  pinterestError,
  uploadError,
  videoMediaSource,
} from "../../../src/platforms/pinterest/transform";
import type { AdapterMedia } from "../../../src/platforms/types";
import { testAccount } from "../../support/adapter-context";

const image = (n: number): AdapterMedia => ({
  id: `i${n}`,
  type: "image",
  mimeType: "image/jpeg",
  url: `https://media.test/medias/i${n}.jpg`,
  path: `medias/i${n}.jpg`,
  size: 100,
  width: 1000,
  height: 1500,
  originalFilename: `i${n}.jpg`,
});

describe("pinterest board and body", () => {
  it("row board_id wins over the account default; none → the decisions message", () => {
    const account = testAccount("pinterest", { meta: { default_board_id: "default-board" } });
    expect(boardId({ meta: { board_id: "row-board" }, account })).toBe("row-board");
    expect(boardId({ meta: {}, account })).toBe("default-board");
    expect(() => boardId({ meta: { board_id: "" }, account: testAccount("pinterest") })).toThrow(
      "Pinterest board_id is required.",
    );
  });

  it("builds the Pin body with optional fields only when set", () => {
    expect(
      createPinBody(
        {
          content: "desc",
          meta: { board_id: "b", board_section_id: "s", title: "", link: "https://x.test" },
          account: testAccount("pinterest"),
        },
        { source_type: "image_url", url: "https://media.test/medias/i1.jpg" },
      ),
    ).toEqual({
      board_id: "b",
      board_section_id: "s",
      description: "desc",
      link: "https://x.test",
      media_source: { source_type: "image_url", url: "https://media.test/medias/i1.jpg" },
    });
  });

  it("media sources per content type", () => {
    expect(imageMediaSource("pinterest_pin", [image(1)])).toEqual({ source_type: "image_url", url: image(1).url });
    expect(imageMediaSource("pinterest_carousel", [image(1), image(2)])).toEqual({
      source_type: "multiple_image_urls",
      items: [{ url: image(1).url }, { url: image(2).url }],
      index: 0,
    });
    expect(() => imageMediaSource("pinterest_carousel", [1, 2, 3, 4, 5, 6].map(image))).toThrow(
      "A Pinterest carousel needs 2 to 5 images.",
    );
    expect(() => imageMediaSource("pinterest_pin", [image(1), image(2)])).toThrow(
      "A Pinterest Pin needs exactly one image.",
    );
    expect(videoMediaSource("m1", {})).toEqual({
      source_type: "video_id",
      media_id: "m1",
      cover_image_key_frame_time: 1,
    });
    expect(videoMediaSource("m1", { cover_image_key_frame_time: 4 })).toEqual({
      source_type: "video_id",
      media_id: "m1",
      cover_image_key_frame_time: 4,
    });
  });
});

describe("pinterest multipartPlan", () => {
  it("frames the upload_parameters then the file so a form parser reads them back", async () => {
    const fields = {
      key: "uploads/abc.mp4",
      policy: "eyJleHBpcmF0aW9uIjoi",
      "x-amz-signature": "f00d",
      "Content-Type": "multipart/form-data",
    };
    const fileBytes = new TextEncoder().encode("fake-mp4-bytes");
    const plan = multipartPlan(
      fields,
      { filename: "clip.mp4", mimeType: "video/mp4", size: fileBytes.byteLength },
      "5000-0001",
    );
    const body = new Uint8Array(plan.length);
    body.set(plan.head, 0);
    body.set(fileBytes, plan.head.byteLength);
    body.set(plan.tail, plan.head.byteLength + fileBytes.byteLength);
    expect(plan.contentType).toBe("multipart/form-data; boundary=----pinterest-upload-50000001");
    const form = await new Response(body, { headers: { "content-type": plan.contentType } }).formData();
    const file = form.get("file") as File;
    expect({
      fields: Object.fromEntries([...form.entries()].filter(([, v]) => typeof v === "string")),
      order: [...form.keys()],
      file: [file.name, file.type, await file.text()],
    }).toEqual({
      fields,
      order: ["key", "policy", "x-amz-signature", "Content-Type", "file"],
      file: ["clip.mp4", "video/mp4", "fake-mp4-bytes"],
    });
  });
});

describe("pinterest analytics", () => {
  it("asks for the last 89 days and video metrics only for video Pins", () => {
    expect(analyticsWindow(Date.parse("2026-03-01T23:30:00Z"))).toEqual({
      start_date: "2025-12-02",
      end_date: "2026-03-01",
    });
    expect(metricTypes("pinterest_pin")).toEqual(["IMPRESSION", "SAVE", "PIN_CLICK", "OUTBOUND_CLICK"]);
    expect(metricTypes("pinterest_video_pin")).toEqual([
      "IMPRESSION",
      "SAVE",
      "PIN_CLICK",
      "OUTBOUND_CLICK",
      "VIDEO_MRC_VIEW",
    ]);
  });

  it("maps the window's summary_metrics (never lifetime_metrics), else the sum of daily rows", () => {
    const daily = [
      {
        date: "2026-11-21",
        data_status: "READY",
        metrics: { IMPRESSION: 100, SAVE: 2, PIN_CLICK: 5, OUTBOUND_CLICK: 1 },
      },
      {
        date: "2026-11-22",
        data_status: "PROCESSING",
        metrics: { IMPRESSION: 50, SAVE: 1, PIN_CLICK: 0, OUTBOUND_CLICK: 0 },
      },
    ];
    const labels = (v: number[]) =>
      ["Impressions", "Saves", "Pin clicks", "Outbound clicks", "Video views"].map((label, i) => ({
        label,
        value: v[i],
      }));
    expect(
      metricsFromAnalytics({
        all: {
          daily_metrics: daily,
          summary_metrics: { IMPRESSION: 150, SAVE: 3, PIN_CLICK: 5, OUTBOUND_CLICK: 1 },
          lifetime_metrics: { IMPRESSION: 0, SAVE: 0, PIN_CLICK: 0, OUTBOUND_CLICK: 0 },
        },
      }),
    ).toEqual(labels([150, 3, 5, 1, 0]));
    expect(
      metricsFromAnalytics({ all: { daily_metrics: daily, summary_metrics: { IMPRESSION: 150, SAVE: 3 } } }),
    ).toEqual(labels([150, 3, 0, 0, 0]));
    expect(metricsFromAnalytics({ all: { daily_metrics: daily } })).toEqual(labels([150, 3, 5, 1, 0]));
    expect(metricsFromAnalytics(null)).toEqual(labels([0, 0, 0, 0, 0]));
  });
});

describe("pinterest errors", () => {
  it.each([
    [
      429,
      { code: 8, message: "You have exceeded your rate limit. Try again later." },
      "transient",
      "Pinterest rate limit reached.",
    ],
    [401, { code: 2, message: "Authentication failed." }, "auth", "The Pinterest access token is invalid or expired."],
    [
      403,
      { code: 29, message: "You are not permitted to access that resource." },
      "permanent",
      "Pinterest: You are not permitted to access that resource.",
    ],
    [404, { code: 40, message: "Board not found." }, "permanent", "Pinterest: Board not found."],
    [500, { code: 0, message: "Internal error" }, "transient", "Pinterest: Internal error."],
    [502, null, "transient", "Pinterest answered HTTP 502."],
  ])("%i → %s", (status, body, kind, message) => {
    const err = pinterestError(status, body, new Headers(), 0);
    expect([err.kind, err.message, err.status]).toEqual([kind, message, status]);
  });

  it("reads S3 XML errors", () => {
    const xml = "<Error><Code>AccessDenied</Code><Message>Policy expired.</Message></Error>";
    const err = uploadError(403, xml);
    expect([err.kind, err.message]).toEqual([
      "transient",
      "Pinterest's media storage refused the video upload: Policy expired.",
    ]);
    expect(uploadError(400, "<Error><Code>EntityTooSmall</Code></Error>").kind).toBe("permanent");
  });
});
