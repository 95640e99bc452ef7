import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import worker from "../../src/index";
import { configureOutboundDns, guardedFetch, OutboundRefusedError } from "../../src/lib/outbound-guard";
import { GIF_1X1, insertPost, mediaRows } from "../media/fixtures";
import { fakeOrigin, outboundCalls } from "../support/fake-fetch";
import { createTestWorkspace } from "../support/harness";

/**
 * Issue 25 finding 11: off Cloudflare's edge (`OUTBOUND_EGRESS=resolve`) the guard resolves every host name over
 * DNS over HTTPS before contacting it, and refuses names with any non-public address. A fake DoH server answers.
 */
const DOH = "https://doh.fake";
const RESOLVE = { egress: "resolve" as const, dohUrl: `${DOH}/dns-query` };

/** name → A/AAAA records; a missing name is NXDOMAIN; `"fail"` makes the resolver answer 500. */
type Zone = Record<string, { A?: string[]; AAAA?: string[] } | "fail">;
const dohQueries: string[] = [];

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  configureOutboundDns({ egress: "cloudflare", dohUrl: "https://cloudflare-dns.com/dns-query" });
});

function fakeDoh(zone: Zone) {
  cleanups.push(
    fakeOrigin(DOH, (req) => {
      const url = new URL(req.url);
      const name = url.searchParams.get("name") ?? "";
      const type = url.searchParams.get("type") as "A" | "AAAA";
      dohQueries.push(`${name} ${type} ${req.headers.get("Accept")}`);
      const entry = zone[name];
      if (entry === "fail") return new Response("oops", { status: 500 });
      if (!entry) return Response.json({ Status: 3, Question: [{ name, type: type === "A" ? 1 : 28 }] });
      const Answer = (entry[type] ?? []).map((data) => ({ name, type: type === "A" ? 1 : 28, TTL: 60, data }));
      return Response.json({ Status: 0, Answer });
    }),
  );
}

/** A fake host that counts the requests it receives. */
function fakeHost(origin: string, respond: (req: Request) => Response = () => new Response(GIF_1X1)) {
  const hits: string[] = [];
  cleanups.push(
    fakeOrigin(origin, (req) => {
      hits.push(new URL(req.url).pathname);
      return respond(req);
    }),
  );
  return hits;
}

const get = (url: string) => guardedFetch(url, {}, { allowPrivate: false, timeoutMs: 5000 });
const refusal = (url: string) =>
  get(url).then(
    () => null,
    (err: unknown) => (err instanceof OutboundRefusedError ? `${err.kind}: ${err.message}` : String(err)),
  );

describe("outbound guard off the edge: names are resolved before they are contacted", () => {
  it("refuses a name with a private, loopback, metadata or mapped address (A or AAAA) and never contacts it", async () => {
    fakeDoh({
      "inward.example.com": { A: ["10.0.0.5"] },
      "loop.example.com": { A: ["127.0.0.1"] },
      "meta.example.com": { A: ["169.254.169.254"] },
      "v6.example.com": { A: ["93.184.216.34"], AAAA: ["fd00::1"] },
      "mapped.example.com": { AAAA: ["::ffff:10.0.0.1"] },
    });
    configureOutboundDns(RESOLVE);
    const hosts = ["inward", "loop", "meta", "v6", "mapped"].map((h) => `https://${h}.example.com`);
    const hits = hosts.map((h) => fakeHost(h));
    for (const host of hosts)
      expect(await refusal(`${host}/x.gif`)).toBe("refused: The name resolves to a private address.");
    expect(hits.flat()).toEqual([]);
  });

  it("lets a name whose every address is public through; asks for A and AAAA in the DoH JSON format", async () => {
    fakeDoh({ "cdn.example.org": { A: ["93.184.216.34"], AAAA: ["2606:2800:220:1:248:1893:25c8:1946"] } });
    configureOutboundDns(RESOLVE);
    const hits = fakeHost("https://cdn.example.org");
    dohQueries.length = 0;
    const res = await get("https://cdn.example.org/a.gif");
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    expect(hits).toEqual(["/a.gif"]);
    expect(dohQueries.sort()).toEqual([
      "cdn.example.org A application/dns-json",
      "cdn.example.org AAAA application/dns-json",
    ]);
  });

  it("checks every redirect hop: a public name redirecting to an inward one is refused before the second is contacted", async () => {
    fakeDoh({ "hop.example.org": { A: ["93.184.216.34"] }, "inner.example.org": { A: ["192.168.1.10"] } });
    configureOutboundDns(RESOLVE);
    fakeHost(
      "https://hop.example.org",
      () => new Response(null, { status: 302, headers: { Location: "https://inner.example.org/secret" } }),
    );
    const inner = fakeHost("https://inner.example.org");
    expect(await refusal("https://hop.example.org/start")).toBe("refused: The name resolves to a private address.");
    expect(inner).toEqual([]);
  });

  it("fails closed: a name that does not resolve, or a resolver that fails, is refused", async () => {
    fakeDoh({ "broken.example.org": "fail" });
    configureOutboundDns(RESOLVE);
    const nowhere = fakeHost("https://nowhere.example.org");
    const broken = fakeHost("https://broken.example.org");
    expect(await refusal("https://nowhere.example.org/")).toBe("refused: The name does not resolve.");
    expect(await refusal("https://broken.example.org/")).toBe(
      "refused: The name could not be resolved to check its addresses.",
    );
    expect([...nowhere, ...broken]).toEqual([]);
  });

  it("IP literals are judged as before, without asking the resolver; on the edge no name is resolved", async () => {
    fakeDoh({});
    configureOutboundDns(RESOLVE);
    dohQueries.length = 0;
    expect(await refusal("http://10.0.0.1/")).toBe("refused: Private addresses are not allowed.");
    expect(dohQueries).toEqual([]);
    configureOutboundDns({ egress: "cloudflare", dohUrl: RESOLVE.dohUrl });
    const hits = fakeHost("https://inward2.example.com");
    const before = outboundCalls.length;
    expect((await get("https://inward2.example.com/x")).status).toBe(200);
    // Trusting the edge's egress: the host is contacted directly, the resolver is not asked.
    expect(outboundCalls.slice(before).map((c) => c.url)).toEqual(["https://inward2.example.com/x"]);
    expect(hits).toEqual(["/x"]);
  });

  it("through the API: OUTBOUND_EGRESS=resolve makes media from URL refuse a name that points inward", async () => {
    fakeDoh({ "photos.example.net": { A: ["93.184.216.34"] }, "intranet.example.net": { A: ["10.1.2.3"] } });
    const good = fakeHost("https://photos.example.net");
    const bad = fakeHost("https://intranet.example.net");
    const ws = await createTestWorkspace();
    const { postId } = await insertPost(ws, [{ platform: "x", contentType: "x_post" }]);
    const ctx = createExecutionContext();
    const res = await worker.fetch!(
      new Request(`https://api.test/api/posts/${postId}/media/from-url`, {
        method: "POST",
        headers: { Authorization: `Bearer ${ws.key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ urls: ["https://photos.example.net/a.gif", "https://intranet.example.net/b.gif"] }),
      }) as Request<unknown, IncomingRequestCfProperties>,
      { ...env, OUTBOUND_EGRESS: "resolve", OUTBOUND_DOH_URL: RESOLVE.dohUrl } as unknown as Cloudflare.Env,
      ctx,
    );
    const body = (await res.json()) as { attached_count: number; failed_urls: string[] };
    await waitOnExecutionContext(ctx);
    expect({ status: res.status, attached: body.attached_count, failed: body.failed_urls }).toEqual({
      status: 200,
      attached: 1,
      failed: ["https://intranet.example.net/b.gif"],
    });
    expect(good).toEqual(["/a.gif"]);
    expect(bad).toEqual([]);
    expect(await mediaRows(ws.workspaceId)).toHaveLength(1);
  });

  it("through the API: under OUTBOUND_EGRESS=resolve a webhook URL's name is resolved at create and update (422 errors.url)", async () => {
    // Issue 35: the name was judged only at delivery, so an endpoint pointing inward was accepted and failed later.
    fakeDoh({
      "hooks.example.net": { A: ["93.184.216.34"] },
      "hooks.intranet.example.net": { A: ["10.1.2.3"] },
      "loop.example.net": { AAAA: ["::1"] },
    });
    const ws = await createTestWorkspace();
    const call = async (method: string, path: string, body: unknown) => {
      const ctx = createExecutionContext();
      const res = await worker.fetch!(
        new Request(`https://api.test${path}`, {
          method,
          headers: { Authorization: `Bearer ${ws.key}`, "Content-Type": "application/json" },
          body: JSON.stringify(body),
        }) as Request<unknown, IncomingRequestCfProperties>,
        { ...env, OUTBOUND_EGRESS: "resolve", OUTBOUND_DOH_URL: RESOLVE.dohUrl } as unknown as Cloudflare.Env,
        ctx,
      );
      const json = (await res.json()) as Record<string, unknown>;
      await waitOnExecutionContext(ctx);
      return { status: res.status, body: json };
    };
    const refused = (reason: string) => {
      const message = `The url is refused: ${reason}`;
      return { status: 422, body: { message, errors: { url: [message] } } };
    };
    const events = ["post.published"];
    expect(await call("POST", "/api/webhooks", { url: "https://hooks.intranet.example.net/in", events })).toEqual(
      refused("The name resolves to a private address."),
    );
    expect(await call("POST", "/api/webhooks", { url: "https://loop.example.net/in", events })).toEqual(
      refused("The name resolves to a private address."),
    );
    expect(await call("POST", "/api/webhooks", { url: "https://nowhere.example.net/in", events })).toEqual(
      refused("The name does not resolve."),
    );
    const made = await call("POST", "/api/webhooks", { url: "https://hooks.example.net/in", events });
    expect(made.status).toBe(201);
    const id = made.body.id as string;
    expect(await call("PUT", `/api/webhooks/${id}`, { url: "https://hooks.intranet.example.net/in" })).toEqual(
      refused("The name resolves to a private address."),
    );
    // The refused update changed nothing; the endpoint keeps its public URL.
    const kept = await ws.api("GET", `/api/webhooks/${id}`);
    expect({ status: kept.status, url: kept.body.url }).toEqual({ status: 200, url: "https://hooks.example.net/in" });
    const moved = await call("PUT", `/api/webhooks/${id}`, { url: "https://hooks.example.net/other" });
    expect({ status: moved.status, url: moved.body.url }).toEqual({
      status: 200,
      url: "https://hooks.example.net/other",
    });
  });
});
