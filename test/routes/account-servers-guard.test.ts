import { afterEach, describe, expect, it } from "vitest";
import { blueskyAdapter } from "../../src/platforms/bluesky/adapter";
import { mastodonAdapter } from "../../src/platforms/mastodon/adapter";
import { PlatformError } from "../../src/platforms/types";
import { testAccount, testAdapterContext } from "../support/adapter-context";
import { fakeOrigin, outboundCalls } from "../support/fake-fetch";
import { createTestWorkspace } from "../support/harness";

/**
 * Bluesky `meta.service` and Mastodon `meta.instance` are chosen by the client: verification and publishing go
 * through the outbound guard (src/lib/outbound-guard.ts), and an answer that is not what the protocol promises is
 * a 422 on the server field, never a 500.
 */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
const fake = (origin: string, handler: (req: Request) => Response | Promise<Response>) =>
  cleanups.push(fakeOrigin(origin, handler));

const bluesky = (service: string) => ({
  platform: "bluesky",
  display_name: "Alice",
  username: "",
  credentials: { identifier: "alice.bsky.social", app_password: "abcd-efgh-ijkl-mnop" },
  meta: { service },
});
const mastodon = (instance: string) => ({
  platform: "mastodon",
  display_name: "Bob",
  username: "bob",
  credentials: { access_token: "masto-token" },
  meta: { instance },
});
const invalid = (field: string, message: string) => ({
  status: 422,
  body: { message, errors: { [field]: [message] } },
});

describe("account servers go through the outbound guard", () => {
  it("refuses private, loopback, metadata and odd-port servers without calling them", async () => {
    const ws = await createTestWorkspace();
    const before = outboundCalls.length;
    const cases: [Record<string, unknown>, string, string][] = [
      [bluesky("http://127.0.0.1"), "meta.service", "Private addresses are not allowed."],
      [bluesky("http://169.254.169.254"), "meta.service", "Private addresses are not allowed."],
      [bluesky("http://[::ffff:0:a00:1]"), "meta.service", "Private addresses are not allowed."],
      [bluesky("https://pds.fake:8443"), "meta.service", "Only ports 80 and 443 are allowed."],
      [mastodon("http://10.0.0.5"), "meta.instance", "Private addresses are not allowed."],
      [mastodon("https://metadata.google.internal"), "meta.instance", "Private addresses are not allowed."],
      [mastodon("https://mastodon.fake:6379"), "meta.instance", "Only ports 80 and 443 are allowed."],
    ];
    for (const [body, field, reason] of cases) {
      const label = field === "meta.service" ? "Bluesky server" : "Mastodon instance";
      const res = await ws.api("POST", "/api/social-accounts", body);
      expect({ status: res.status, body: res.body }, JSON.stringify(body.meta)).toEqual(
        invalid(field, `The ${label} address is not allowed: ${reason}`),
      );
    }
    expect(outboundCalls.slice(before)).toEqual([]);
  });

  it("checks every redirect hop of the verification", async () => {
    const hits: string[] = [];
    fake("https://redirecting-pds.fake", (req) => {
      hits.push(new URL(req.url).pathname);
      return new Response(null, { status: 307, headers: { Location: "http://169.254.169.254/latest/meta-data/" } });
    });
    fake(
      "https://redirecting-masto.fake",
      () => new Response(null, { status: 302, headers: { Location: "http://[::1]/" } }),
    );
    const ws = await createTestWorkspace();
    const b = await ws.api("POST", "/api/social-accounts", bluesky("https://redirecting-pds.fake"));
    expect({ status: b.status, body: b.body }).toEqual(
      invalid("meta.service", "The Bluesky server address is not allowed: Private addresses are not allowed."),
    );
    expect(hits).toEqual(["/xrpc/com.atproto.server.createSession"]);
    const m = await ws.api("POST", "/api/social-accounts", mastodon("https://redirecting-masto.fake"));
    expect({ status: m.status, body: m.body }).toEqual(
      invalid("meta.instance", "The Mastodon instance address is not allowed: Private addresses are not allowed."),
    );
  });

  it("answers 422 when the server's answer is not what the protocol promises (not JSON, wrong shape, too large)", async () => {
    fake(
      "https://html-pds.fake",
      () => new Response("<html>hello</html>", { headers: { "Content-Type": "text/html" } }),
    );
    fake("https://shape-pds.fake", () => Response.json({ did: 42, accessJwt: ["x"] }));
    fake("https://huge-pds.fake", () => Response.json({ padding: "x".repeat(200_000) }));
    fake("https://html-masto.fake", () => new Response("<html>it works</html>"));
    fake("https://array-masto.fake", () => Response.json([{ id: "1" }]));
    const ws = await createTestWorkspace();
    const pds = invalid("meta.service", "The Bluesky server did not answer as the protocol expects.");
    const masto = invalid("meta.instance", "The Mastodon instance did not answer as the protocol expects.");
    for (const [body, expected] of [
      [bluesky("https://html-pds.fake"), pds],
      [bluesky("https://shape-pds.fake"), pds],
      [bluesky("https://huge-pds.fake"), pds],
      [mastodon("https://html-masto.fake"), masto],
      [mastodon("https://array-masto.fake"), masto],
    ] as const) {
      const res = await ws.api("POST", "/api/social-accounts", body);
      expect({ status: res.status, body: res.body }, JSON.stringify(body.meta)).toEqual(expected);
    }
  });

  it("an unreachable server is a 422 on the server field", async () => {
    const ws = await createTestWorkspace();
    fake("https://down-pds.fake", () => {
      throw new TypeError("Network connection lost.");
    });
    const res = await ws.api("POST", "/api/social-accounts", bluesky("https://down-pds.fake"));
    expect({ status: res.status, body: res.body }).toEqual(
      invalid("meta.service", "The Bluesky server could not be reached."),
    );
  });

  it("publishing refuses an account whose server is not a public address, permanently and without calling it", async () => {
    const before = outboundCalls.length;
    const req = (platform: "bluesky" | "mastodon", meta: Record<string, unknown>) => ({
      postPlatformId: crypto.randomUUID(),
      contentType: `${platform}_post`,
      content: "hello",
      media: [],
      meta: {},
      account: testAccount(platform, {
        username: "alice.bsky.social",
        platformUserId: "did:plc:abc",
        meta,
        credentials: { access_token: "t", access_jwt: "jwt" },
      }),
    });
    const b = await blueskyAdapter
      .publish(testAdapterContext(), req("bluesky", { service: "http://192.168.1.10", did: "did:plc:abc" }))
      .catch((e) => e);
    expect(b).toBeInstanceOf(PlatformError);
    expect({ kind: b.kind, message: b.message }).toEqual({
      kind: "permanent",
      message: "The Bluesky server address is not allowed: Private addresses are not allowed.",
    });
    const m = await mastodonAdapter
      .publish(testAdapterContext(), req("mastodon", { instance: "https://mastodon.fake:2375" }))
      .catch((e) => e);
    expect(m).toBeInstanceOf(PlatformError);
    expect({ kind: m.kind, message: m.message }).toEqual({
      kind: "permanent",
      message: "The Mastodon server address is not allowed: Only ports 80 and 443 are allowed.",
    });
    expect(outboundCalls.slice(before)).toEqual([]);
  });
});
