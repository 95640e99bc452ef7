import { describe, expect, it } from "vitest";
import {
  describeContainerStatus,
  graphError,
  graphErrorKind,
  graphErrorMessage,
  scrub,
} from "../../../src/platforms/meta/errors";
import { insightValues, labelMetrics } from "../../../src/platforms/meta/insights";
import { usageRetryAfterSeconds } from "../../../src/platforms/meta/usage";

const envelope = (e: Record<string, unknown>) => ({ error: { type: "OAuthException", fbtrace_id: "AbC", ...e } });

describe("Meta Graph errors", () => {
  it.each([
    [400, { code: 190, error_subcode: 463, message: "Error validating access token: Session has expired" }, "auth"],
    [401, { code: 190, error_subcode: 460, message: "password changed" }, "auth"],
    [403, { code: 4, message: "(#4) Application request limit reached", is_transient: true }, "transient"],
    [400, { code: 17, message: "(#17) User request limit reached" }, "transient"],
    [400, { code: 32, message: "(#32) Page request limit reached" }, "transient"],
    [400, { code: 613, message: "(#613) Calls to this api have exceeded the rate limit." }, "transient"],
    [400, { code: 80001, message: "(#80001) There have been too many calls to this Page account." }, "transient"],
    [400, { code: 80014, message: "(#80014) too many calls" }, "transient"],
    [500, { code: 1, message: "An unknown error occurred" }, "transient"],
    [500, { code: 2, message: "Service temporarily unavailable", is_transient: true }, "transient"],
    [
      400,
      { code: 9007, error_subcode: 2207027, message: "(#9007) The media is not ready for publishing" },
      "transient",
    ],
    [400, { code: 36003, error_subcode: 2207042, message: "limit" }, "transient"],
    [400, { code: 100, message: "(#100) Invalid parameter" }, "permanent"],
    [403, { code: 200, message: "(#200) Permissions error" }, "permanent"],
    [
      400,
      { code: 368, message: "The action attempted has been deemed abusive or is otherwise disallowed" },
      "permanent",
    ],
    [400, { code: 506, message: "Duplicate status message" }, "permanent"],
  ])("HTTP %i %o → %s", (status, e, kind) => {
    expect(graphErrorKind(status, envelope(e))).toBe(kind);
  });

  it("falls back to the HTTP status without an envelope", () => {
    expect(graphErrorKind(502, null)).toBe("transient");
    expect(graphErrorKind(401, null)).toBe("auth");
    expect(graphErrorKind(404, null)).toBe("permanent");
  });

  it("speaks in plain words", () => {
    expect(
      graphErrorMessage(envelope({ code: 100, message: "(#100) The parameter image_url is required." }), "x"),
    ).toBe("The parameter image_url is required.");
    expect(
      graphErrorMessage(
        envelope({
          code: 100,
          message: "Invalid parameter",
          error_user_title: "T",
          error_user_msg: "The video is too long.",
        }),
        "x",
      ),
    ).toBe("The video is too long.");
    expect(
      graphErrorMessage(envelope({ code: 9004, error_subcode: 2207052, message: "(#9004) Only photo…" }), "x"),
    ).toBe("Instagram could not fetch the media from its URL.");
    expect(
      graphErrorMessage({ debug_info: { type: "AuthError", message: "Invalid OAuth access token." } } as never, "x"),
    ).toBe("Invalid OAuth access token.");
    expect(graphErrorMessage(null, "Facebook returned HTTP 502.")).toBe("Facebook returned HTTP 502.");
  });

  it("never repeats a token", () => {
    expect(scrub("bad token EAAGm0PX4ZCpsBA and more", ["EAAGm0PX4ZCpsBA"])).toBe("bad token [redacted] and more");
    const err = graphError(
      "Facebook",
      { status: 400, headers: new Headers() },
      envelope({ code: 190, message: "token EAAGm0PX4ZCpsBA expired" }),
      ["EAAGm0PX4ZCpsBA"],
    );
    expect([err.kind, err.message, err.status]).toEqual(["auth", "token [redacted] expired", 400]);
  });

  it("describes container status strings", () => {
    expect(describeContainerStatus("Error: Media upload has failed with error code 2207026", "Instagram")).toBe(
      "Instagram does not support this video format.",
    );
    expect(describeContainerStatus("Error: Something odd happened", "Instagram")).toBe(
      "Instagram could not process the media: Something odd happened",
    );
    expect(describeContainerStatus(undefined, "Instagram")).toBe("Instagram could not process the media.");
  });
});

describe("Meta usage headers", () => {
  it("reads the longest estimated_time_to_regain_access (minutes) from X-Business-Use-Case-Usage", () => {
    const headers = new Headers({
      "x-app-usage": '{"call_count":28,"total_time":25,"total_cputime":25}',
      "x-business-use-case-usage": JSON.stringify({
        "112233445566": [
          { type: "pages", call_count: 100, total_cputime: 20, total_time: 22, estimated_time_to_regain_access: 7 },
          { type: "instagram", call_count: 40, total_cputime: 2, total_time: 3, estimated_time_to_regain_access: 0 },
        ],
        "998877": [
          { type: "instagram", call_count: 100, total_cputime: 1, total_time: 1, estimated_time_to_regain_access: 12 },
        ],
      }),
    });
    expect(usageRetryAfterSeconds(headers)).toBe(720);
  });

  it("reads X-Ad-Account-Usage reset_time_duration (seconds) and ignores percent-only headers", () => {
    expect(
      usageRetryAfterSeconds(new Headers({ "x-ad-account-usage": '{"acc_id_util_pct":100,"reset_time_duration":95}' })),
    ).toBe(95);
    expect(
      usageRetryAfterSeconds(new Headers({ "x-app-usage": '{"call_count":100,"total_time":40,"total_cputime":35}' })),
    ).toBeUndefined();
    expect(usageRetryAfterSeconds(new Headers({ "x-business-use-case-usage": "not json" }))).toBeUndefined();
  });

  it("attaches the hint to transient errors only", () => {
    const headers = new Headers({
      "x-business-use-case-usage": JSON.stringify({
        "1": [{ type: "pages", call_count: 100, estimated_time_to_regain_access: 3 }],
      }),
    });
    expect(
      graphError("Facebook", { status: 400, headers }, envelope({ code: 80001, message: "m" })).retryAfterSeconds,
    ).toBe(180);
    expect(
      graphError("Facebook", { status: 400, headers }, envelope({ code: 100, message: "m" })).retryAfterSeconds,
    ).toBeUndefined();
  });
});

describe("Meta insights", () => {
  it("reads values, total_value and summed objects; missing metrics count 0", () => {
    const values = insightValues({
      data: [
        {
          name: "post_impressions",
          period: "lifetime",
          values: [{ value: 3021 }],
          title: "Lifetime Post Total Impressions",
          id: "1_2/insights/post_impressions/lifetime",
        },
        { name: "post_reactions_by_type_total", period: "lifetime", values: [{ value: { like: 4, love: 2 } }] },
        { name: "likes", total_value: { value: 9 } },
      ],
    });
    expect(values).toEqual({ post_impressions: 3021, post_reactions_by_type_total: 6, likes: 9 });
    expect(
      labelMetrics(values, [
        ["Impressions", "post_impressions"],
        ["Clicks", "post_clicks"],
      ]),
    ).toEqual([
      { label: "Impressions", value: 3021 },
      { label: "Clicks", value: 0 },
    ]);
  });
});
