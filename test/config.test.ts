import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/config";

describe("config", () => {
  it("uses the test bindings over any local .dev.vars", () => {
    const config = loadConfig(env);
    expect(config.APP_ENV).toBe("test");
    expect(config.MEDIA_FETCH_ALLOW_PRIVATE).toBe(false);
    expect(config.MEDIA_URL).toBe("https://media.test");
    expect(config.X_API_URL).toBe("https://x.fake");
  });

  it("applies safe defaults for unset vars", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      APP_ENV: "production",
      API_RATE_LIMIT_PER_MINUTE: 60,
      MEDIA_IMAGE_MAX_BYTES: 10 * 1024 * 1024,
      MEDIA_VIDEO_MAX_BYTES: 1024 * 1024 * 1024,
      UPLOAD_URL_TTL_SECONDS: 900,
      UPLOAD_MAX_BYTES: 52_428_800,
      UPLOAD_RATE_LIMIT_PER_MINUTE: 10,
      MEDIA_FETCH_ALLOW_PRIVATE: false,
      X_API_URL: "https://api.x.com",
      BLUESKY_APPVIEW_URL: "https://public.api.bsky.app",
      BLUESKY_PLC_URL: "https://plc.directory",
    });
    expect(config.ADMIN_TOKEN).toBeUndefined();
  });

  it("normalises URLs: trailing slashes dropped, empty platform hosts fall back to the real ones", () => {
    const config = loadConfig({
      PUBLIC_URL: "https://api.example.com/",
      MEDIA_URL: "https://cdn.example.com/",
      X_API_URL: "",
    });
    expect(config.PUBLIC_URL).toBe("https://api.example.com");
    expect(config.MEDIA_URL).toBe("https://cdn.example.com");
    expect(config.X_API_URL).toBe("https://api.x.com");
  });

  it("names invalid vars without echoing values", () => {
    expect(() => loadConfig({ API_RATE_LIMIT_PER_MINUTE: "lots", ADMIN_TOKEN: "s3cret" })).toThrow(
      "Invalid configuration: API_RATE_LIMIT_PER_MINUTE",
    );
  });
});
