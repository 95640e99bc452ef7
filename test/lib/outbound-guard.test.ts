import { afterEach, describe, expect, it } from "vitest";
import {
  assertPublicUrl,
  guardedExchange,
  guardedFetch,
  OutboundRefusedError,
  outboundRefusal,
} from "../../src/lib/outbound-guard";
import { fakeOrigin, outboundCalls } from "../support/fake-fetch";

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});
const fake = (origin: string, handler: (req: Request) => Response | Promise<Response>) =>
  cleanups.push(fakeOrigin(origin, handler));

const strict = { allowPrivate: false };
const refused = (url: string) => outboundRefusal(new URL(url), strict);

describe("outboundRefusal: only global unicast, only ports 80 and 443", () => {
  it("refuses every special-purpose IPv6 block, including the ones that embed an IPv4 address", () => {
    for (const url of [
      "http://[::ffff:0:7f00:1]/", // IPv4-translated ::ffff:0:127.0.0.1
      "http://[::ffff:0:8.8.8.8]/", // IPv4-translated, even of a public address
      "http://[::ffff:8.8.8.8]/", // IPv4-mapped
      "http://[::8.8.8.8]/", // IPv4-compatible
      "http://[fec0::1]/", // site-local
      "http://[feff::1]/",
      "http://[2002:7f00:1::]/", // 6to4 of 127.0.0.1
      "http://[2002:0808:0808::1]/", // 6to4 of anything
      "http://[2001::1]/", // Teredo
      "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/",
      "http://[2001:10::1]/", // ORCHID (2001::/23)
      "http://[100::1]/", // discard-only
      "http://[64:ff9b::808:808]/", // NAT64
      "http://[2001:db8::1]/", // documentation
      "http://[3fff::1]/", // documentation (2024)
      "http://[::]/",
      "http://[::1]/",
      "http://[fc00::1]/",
      "http://[fe80::1]/",
      "http://[ff02::1]/",
    ]) {
      expect(refused(url), url).toBe("Private addresses are not allowed.");
    }
  });

  it("refuses special IPv4 blocks and internal names", () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://2130706433/",
      "http://0x7f.1/",
      "http://10.0.0.1/",
      "http://169.254.169.254/",
      "http://192.88.99.1/",
      "http://255.255.255.255/",
      "http://router.home.arpa/",
      "http://metadata.google.internal/",
      "http://intranet/",
    ]) {
      expect(refused(url), url).toBe("Private addresses are not allowed.");
    }
  });

  it("refuses ports other than 80 and 443, and non-http schemes and credentials", () => {
    expect(refused("https://example.com:8443/")).toBe("Only ports 80 and 443 are allowed.");
    expect(refused("http://example.com:22/")).toBe("Only ports 80 and 443 are allowed.");
    expect(refused("http://[2606:4700::1111]:6379/")).toBe("Only ports 80 and 443 are allowed.");
    expect(refused("gopher://example.com/")).toBe("Only http and https URLs are allowed.");
    expect(refused("https://a:b@example.com/")).toBe("URLs with credentials are not allowed.");
  });

  it("allows global unicast literals and public names on 80/443; the dev var lifts address and port checks", () => {
    for (const url of [
      "https://example.com/",
      "http://example.com:80/",
      "https://example.com:443/",
      "http://example.com:443/",
      "http://8.8.8.8/",
      "http://[2606:4700::1111]/",
      "http://[2a00:1450:4001:82b::200e]/",
      "http://[2001:200::1]/", // just past 2001::/23
    ]) {
      expect(refused(url), url).toBeNull();
    }
    expect(outboundRefusal(new URL("http://127.0.0.1:8787/"), { allowPrivate: true })).toBeNull();
    expect(outboundRefusal(new URL("http://[::1]:9/"), { allowPrivate: true })).toBeNull();
    expect(outboundRefusal(new URL("file:///etc/passwd"), { allowPrivate: true })).toBe(
      "Only http and https URLs are allowed.",
    );
  });

  it("assertPublicUrl throws a refusal with the reason, also for a string that is not a URL", () => {
    expect(() => assertPublicUrl("not a url", strict)).toThrow(new OutboundRefusedError("Not a valid URL.", "refused"));
    const err = (() => {
      try {
        assertPublicUrl("http://10.0.0.1/", strict);
      } catch (e) {
        return e as OutboundRefusedError;
      }
    })();
    expect(err).toBeInstanceOf(OutboundRefusedError);
    expect({ kind: err?.kind, message: err?.message }).toEqual({
      kind: "refused",
      message: "Private addresses are not allowed.",
    });
    expect(assertPublicUrl("https://example.com/x", strict).toString()).toBe("https://example.com/x");
  });
});

const kindOf = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e) => e,
  );
  return err instanceof OutboundRefusedError ? { kind: err.kind, message: err.message } : err;
};

describe("guardedFetch", () => {
  it("checks every redirect hop and never calls a refused target", async () => {
    fake("https://hop.fake", () => new Response(null, { status: 302, headers: { Location: "http://127.0.0.1/x" } }));
    const before = outboundCalls.length;
    expect(await kindOf(guardedFetch("https://hop.fake/a", {}, { ...strict, timeoutMs: 1000 }))).toEqual({
      kind: "refused",
      message: "Private addresses are not allowed.",
    });
    expect(outboundCalls.slice(before).map((c) => c.url)).toEqual(["https://hop.fake/a"]);
  });

  it("follows at most maxRedirects hops and reports the final URL", async () => {
    fake("https://loop.fake", (req) => {
      const n = Number(new URL(req.url).searchParams.get("n") ?? 0);
      if (n >= 3) return new Response("done");
      return new Response(null, { status: 301, headers: { Location: `/next?n=${n + 1}` } });
    });
    const { response, url } = await guardedExchange("https://loop.fake/start", {}, { ...strict, timeoutMs: 1000 });
    expect({ status: response.status, body: await response.text(), url }).toEqual({
      status: 200,
      body: "done",
      url: "https://loop.fake/next?n=3",
    });
    expect(
      await kindOf(guardedFetch("https://loop.fake/start", {}, { ...strict, timeoutMs: 1000, maxRedirects: 2 })),
    ).toEqual({ kind: "redirects", message: "Too many redirects." });
  });

  it("resends a string body on 307 and turns a POST into a GET on 303", async () => {
    const seen: string[] = [];
    fake("https://post.fake", async (req) => {
      const path = new URL(req.url).pathname;
      seen.push(`${req.method} ${path} ${await req.text()}`);
      if (path === "/a") return new Response(null, { status: 307, headers: { Location: "/b" } });
      if (path === "/b") return new Response(null, { status: 303, headers: { Location: "/c" } });
      return new Response("ok");
    });
    const res = await guardedFetch(
      "https://post.fake/a",
      { method: "POST", body: "x=1" },
      { ...strict, timeoutMs: 1000 },
    );
    expect(await res.text()).toBe("ok");
    expect(seen).toEqual(["POST /a x=1", "POST /b x=1", "GET /c "]);
  });

  it("bounds the answer: by Content-Length and while streaming", async () => {
    fake("https://big.fake", (req) => {
      const chunk = new Uint8Array(1000);
      if (new URL(req.url).pathname === "/declared") return new Response(chunk);
      let sent = 0;
      return new Response(
        new ReadableStream({
          pull(out) {
            sent++;
            if (sent > 5) out.close();
            else out.enqueue(chunk);
          },
        }),
      );
    });
    const opts = { ...strict, timeoutMs: 1000, maxResponseBytes: 2500 };
    const declared = await guardedFetch("https://big.fake/declared", {}, { ...opts, maxResponseBytes: 999 });
    expect(declared.status).toBe(200);
    expect(await kindOf(declared.text())).toEqual({ kind: "too_large", message: "Response too large." });
    const streamed = await guardedFetch("https://big.fake/streamed", {}, opts);
    expect(await kindOf(streamed.arrayBuffer())).toEqual({ kind: "too_large", message: "Response too large." });
    const fits = await guardedFetch("https://big.fake/streamed", {}, { ...opts, maxResponseBytes: 5000 });
    expect((await fits.arrayBuffer()).byteLength).toBe(5000);
  });

  it("one timeout covers the body too; an unreachable host is a refusal of its own kind", async () => {
    fake("https://slow.fake", () => new Response(new ReadableStream({ pull: () => new Promise(() => {}) })));
    const res = await guardedFetch("https://slow.fake/", {}, { ...strict, timeoutMs: 30 });
    expect(await kindOf(res.text())).toEqual({ kind: "timeout", message: "Timed out." });
    expect(
      await kindOf(
        guardedFetch(
          "https://down.fake/",
          {},
          {
            ...strict,
            timeoutMs: 1000,
            fetcher: async () => {
              throw new TypeError("Network connection lost.");
            },
          },
        ),
      ),
    ).toEqual({ kind: "unreachable", message: "Unreachable." });
  });
});
