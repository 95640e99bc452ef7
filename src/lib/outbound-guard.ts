/**
 * The one guard for outbound HTTP to a host a client chose: media from URL, Bluesky PDS and Mastodon instance
 * (account verification and publishing), webhook endpoints. Documented in docs/security.md ("Outbound calls").
 *
 * - `assertPublicUrl(url, {allowPrivate})`: http(s) only, no credentials in the URL, ports 80 and 443 only, an IP
 *   literal must be global unicast, names that only exist inside a network (`localhost`, `*.internal`, `*.local`,
 *   single labels, metadata names) are refused. `allowPrivate` (the dev var `MEDIA_FETCH_ALLOW_PRIVATE`) lifts the
 *   address and port checks for local development and loopback tests; the scheme and credential checks stay.
 * - `guardedFetch(url, init, opts)`: follows at most `maxRedirects` redirects by hand, checking every hop; one
 *   timeout covers the whole exchange including the body; the body is cut off past `maxResponseBytes`.
 *
 * Names that resolve to private addresses (issue 25): on Cloudflare's edge the egress does not route Worker
 * subrequests into private networks, so the name is left to it (`OUTBOUND_EGRESS=cloudflare`, set for deploys in
 * wrangler.jsonc). On any other runtime (`resolve`, the default: wrangler dev, workerd elsewhere) every hop's name is
 * first resolved over DNS over HTTPS (`OUTBOUND_DOH_URL`, A and AAAA) and refused when it does not resolve, when the
 * resolver cannot answer, or when any address it returns is not public — before the host is contacted.
 */

export type OutboundRefusal = "refused" | "redirects" | "timeout" | "unreachable" | "too_large";

export class OutboundRefusedError extends Error {
  constructor(
    message: string,
    readonly kind: OutboundRefusal,
  ) {
    super(message);
    this.name = "OutboundRefusedError";
  }
}

export interface OutboundPolicy {
  /** Allows loopback/private addresses and any port (the dev var `MEDIA_FETCH_ALLOW_PRIVATE`). */
  allowPrivate: boolean;
}

export interface GuardedFetchOptions extends OutboundPolicy {
  /** Redirects followed, each target checked again (default 3). 0 returns the 3xx answer as it is. */
  maxRedirects?: number;
  /** One deadline for the whole exchange: every hop and the body. */
  timeoutMs: number;
  /** The body errors with `OutboundRefusedError("too_large")` past this many bytes (Content-Length checked first). */
  maxResponseBytes?: number;
  /** The fetch to use (adapters pass theirs so tests' fakes apply); resolved at call time by default. */
  fetcher?: typeof fetch;
}

export const DEFAULT_MAX_REDIRECTS = 3;

/** How the guard treats names (docs/security.md "Outbound calls"): set per isolate from the config by every entry point. */
export interface OutboundDns {
  /** `cloudflare`: trust the edge's egress; `resolve`: resolve every name over DoH before connecting. */
  egress: "cloudflare" | "resolve";
  /** A DNS-over-HTTPS endpoint speaking the JSON format (`?name=…&type=A`, `Accept: application/dns-json`). */
  dohUrl: string;
}

export const DEFAULT_DOH_URL = "https://cloudflare-dns.com/dns-query";

let outboundDns: OutboundDns = { egress: "resolve", dohUrl: DEFAULT_DOH_URL };

/** Sets how names are checked; src/index.ts calls it from the config on every request, batch and cron tick. */
export function configureOutboundDns(dns: OutboundDns): void {
  outboundDns = dns;
}

interface DohAnswer {
  Status?: number;
  Answer?: { type?: number; data?: string }[];
}

/**
 * Resolves `host` (A and AAAA) through the DoH endpoint; a refusal reason when it does not resolve, the resolver
 * fails, or any address is not public; null when every address is public.
 */
async function resolvedRefusal(host: string, signal: AbortSignal): Promise<string | null> {
  const ask = async (type: "A" | "AAAA") => {
    const url = new URL(outboundDns.dohUrl);
    url.searchParams.set("name", host);
    url.searchParams.set("type", type);
    const res = await fetch(url, { headers: { Accept: "application/dns-json" }, signal });
    if (!res.ok) throw new Error(`DoH answered ${res.status}`);
    return (await res.json()) as DohAnswer;
  };
  let answers: DohAnswer[];
  try {
    answers = await Promise.all([ask("A"), ask("AAAA")]);
  } catch {
    if (signal.aborted) throw new OutboundRefusedError("Timed out.", "timeout");
    return "The name could not be resolved to check its addresses.";
  }
  const addresses: string[] = [];
  for (const a of answers) {
    // NXDOMAIN (3) and other failures; NOERROR without addresses is judged below.
    if (a.Status !== 0) return "The name does not resolve.";
    for (const r of a.Answer ?? []) if ((r.type === 1 || r.type === 28) && r.data) addresses.push(r.data);
  }
  if (addresses.length === 0) return "The name does not resolve.";
  for (const address of addresses) {
    const literal = address.includes(":") ? `[${address}]` : address;
    let parsed: URL;
    try {
      parsed = new URL(`https://${literal}/`);
    } catch {
      return "The name resolves to a private address.";
    }
    if (outboundRefusal(parsed, { allowPrivate: false })) return "The name resolves to a private address.";
  }
  return null;
}

/** `url` checked, and its name resolved when the isolate is not on Cloudflare's edge; throws the refusal. */
async function assertReachable(url: URL, policy: OutboundPolicy, signal: AbortSignal): Promise<URL> {
  if (policy.allowPrivate || outboundDns.egress === "cloudflare") return url;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[") || ipv4Parts(host)) return url; // literals were judged by outboundRefusal
  const reason = await resolvedRefusal(host, signal);
  if (reason) throw new OutboundRefusedError(reason, "refused");
  return url;
}
/**
 * Why the host of `url` (already past `outboundRefusal`) may not be contacted, judged now as `guardedFetch` judges it
 * before each hop, or null: under `OUTBOUND_EGRESS=resolve` its name is resolved over DoH (private, unresolvable, or
 * a resolver that cannot answer within `timeoutMs`: refused); under `cloudflare`, with `allowPrivate`, or for an IP
 * literal nothing is asked. For checks ahead of use (a webhook URL when it is saved, issue 35): the name can point
 * elsewhere later, so `guardedFetch` still checks it again on every call.
 */
export async function nameRefusal(url: URL, policy: OutboundPolicy, timeoutMs = 5000): Promise<string | null> {
  try {
    await assertReachable(url, policy, AbortSignal.timeout(timeoutMs));
    return null;
  } catch (err) {
    if (!(err instanceof OutboundRefusedError)) throw err;
    return err.kind === "timeout" ? "The name could not be resolved to check its addresses." : err.message;
  }
}

export const ALLOWED_PORTS = new Set(["", "80", "443"]);

const BLOCKED_NAMES = [
  /^localhost$/,
  /\.localhost$/,
  /\.local$/,
  /\.internal$/,
  /\.localdomain$/,
  /\.home\.arpa$/,
  /^metadata$/,
];

function ipv4Parts(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

/** IPv4 special-purpose blocks (IANA registry): anything here is not a public unicast host. */
function specialIpv4([a = 0, b = 0, c = 0]: number[]): boolean {
  return (
    a === 0 || // "this" network
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // IETF assignments, documentation
    (a === 192 && b === 88 && c === 99) || // 6to4 relay anycast
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113) ||
    a >= 224 // multicast, reserved, broadcast
  );
}

/** Eight 16-bit groups, or null when the literal is not a well-formed IPv6 address. */
export function expandIpv6(literal: string): number[] | null {
  let h = literal.replace(/%.*$/, "");
  // Embedded IPv4 (::ffff:1.2.3.4, ::ffff:0:1.2.3.4) → two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (v4) {
    const p = ipv4Parts(v4[1] as string);
    if (!p) return null;
    const [a = 0, b = 0, c = 0, d = 0] = p;
    h = `${h.slice(0, -(v4[1] as string).length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left, right, extra] = h.split("::");
  if (extra !== undefined) return null;
  const l = left ? left.split(":") : [];
  const r = right !== undefined ? (right ? right.split(":") : []) : null;
  if (r !== null && l.length + r.length > 7) return null;
  const groups = r === null ? l : [...l, ...Array(8 - l.length - r.length).fill("0"), ...r];
  if (groups.length !== 8 || groups.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return null;
  return groups.map((g) => Number.parseInt(g, 16));
}

/**
 * Only global unicast (2000::/3) outside the special-purpose blocks. Everything else — loopback, unspecified,
 * IPv4-mapped and -translated (`::ffff:a.b.c.d`, `::ffff:0:a.b.c.d`), NAT64, discard `100::/64`, unique local,
 * link-local, site-local `fec0::/10`, multicast — is refused outright rather than decoded and judged, so no
 * embedding trick can reach a private IPv4 address.
 */
function globalUnicastIpv6([a = 0, b = 0]: number[]): boolean {
  if ((a & 0xe000) !== 0x2000) return false; // outside 2000::/3
  if (a === 0x2001 && b < 0x200) return false; // 2001::/23 IETF protocol assignments (Teredo 2001::/32, ORCHID, …)
  if (a === 0x2001 && b === 0xdb8) return false; // documentation
  if (a === 0x2002) return false; // 6to4 embeds any IPv4 address
  if ((a & 0xfff0) === 0x3ff0) return false; // 3fff::/20 documentation
  return true;
}

/** Why `url` may not be fetched, or null when it may. */
export function outboundRefusal(url: URL, policy: OutboundPolicy): string | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Only http and https URLs are allowed.";
  if (url.username || url.password) return "URLs with credentials are not allowed.";
  if (policy.allowPrivate) return null;
  if (!ALLOWED_PORTS.has(url.port)) return "Only ports 80 and 443 are allowed.";
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[")) {
    const groups = expandIpv6(host.slice(1, -1));
    return groups && globalUnicastIpv6(groups) ? null : "Private addresses are not allowed.";
  }
  const v4 = ipv4Parts(host);
  if (v4) return specialIpv4(v4) ? "Private addresses are not allowed." : null;
  if (!host.includes(".") || BLOCKED_NAMES.some((re) => re.test(host))) return "Private addresses are not allowed.";
  return null;
}

/** Parses and checks `raw`; throws `OutboundRefusedError("refused")` with the reason. */
export function assertPublicUrl(raw: string | URL, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefusedError("Not a valid URL.", "refused");
  }
  const reason = outboundRefusal(url, policy);
  if (reason) throw new OutboundRefusedError(reason, "refused");
  return url;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** A body that can be sent again on a 307/308 hop (a stream cannot). */
const replayable = (body: RequestInit["body"]) => body === undefined || body === null || typeof body === "string";

/**
 * Fetches `raw` under the guard (see the file comment). Throws `OutboundRefusedError` for a refused destination
 * (first or any later hop), too many redirects, a timeout or an unreachable host; any HTTP answer is returned as is
 * (the caller judges its status and shape). A redirect is followed for GET/HEAD and, with the body resent, for
 * 307/308 with a string body; 301/302/303 after another method become a GET, as browsers do.
 * Reading the returned body can throw `OutboundRefusedError` ("timeout", "too_large").
 */
export async function guardedFetch(raw: string | URL, init: RequestInit, opts: GuardedFetchOptions): Promise<Response> {
  return (await guardedExchange(raw, init, opts)).response;
}

/** `guardedFetch`, also telling the URL that answered (after redirects). */
export async function guardedExchange(
  raw: string | URL,
  init: RequestInit,
  opts: GuardedFetchOptions,
): Promise<{ response: Response; url: string }> {
  const fetcher = opts.fetcher ?? ((input, i) => fetch(input, i));
  const maxRedirects = opts.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new OutboundRefusedError("Timed out.", "timeout")), opts.timeoutMs);
  const signal = init.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
  let url = assertPublicUrl(raw, opts);
  let method = (init.method ?? "GET").toUpperCase();
  let body = init.body;
  try {
    for (let hop = 0; ; hop++) {
      await assertReachable(url, opts, controller.signal);
      const res = await fetcher(url.toString(), { ...init, method, body, redirect: "manual", signal });
      const location = res.headers.get("Location");
      if (!REDIRECTS.has(res.status) || !location || maxRedirects === 0) {
        return { response: boundedResponse(res, controller, timer, opts.maxResponseBytes), url: url.toString() };
      }
      await res.body?.cancel().catch(() => {});
      if (hop >= maxRedirects) throw new OutboundRefusedError("Too many redirects.", "redirects");
      if (res.status === 307 || res.status === 308) {
        if (!replayable(body)) throw new OutboundRefusedError("Redirect of a streamed body.", "redirects");
      } else if (method !== "GET" && method !== "HEAD") {
        method = "GET";
        body = undefined;
      }
      url = assertPublicUrl(new URL(location, url), opts);
    }
  } catch (err) {
    clearTimeout(timer);
    if (err instanceof OutboundRefusedError) throw err;
    if (controller.signal.aborted) throw new OutboundRefusedError("Timed out.", "timeout");
    throw new OutboundRefusedError("Unreachable.", "unreachable");
  }
}

/**
 * The answer with its body bounded: the timeout keeps running until the body is read or canceled, and more than
 * `maxBytes` (declared or streamed) errors the stream. Headers and status are the server's.
 */
function boundedResponse(
  res: Response,
  controller: AbortController,
  timer: ReturnType<typeof setTimeout>,
  maxBytes: number | undefined,
): Response {
  const declared = Number(res.headers.get("Content-Length") ?? Number.NaN);
  if (!res.body || (maxBytes !== undefined && declared > maxBytes)) {
    clearTimeout(timer);
    if (res.body) {
      void res.body.cancel().catch(() => {});
      return tooLargeResponse(res);
    }
    return res;
  }
  const reader = res.body.getReader();
  let seen = 0;
  const timedOut = new Promise<never>((_, reject) => {
    const fail = () => reject(new OutboundRefusedError("Timed out.", "timeout"));
    if (controller.signal.aborted) fail();
    else controller.signal.addEventListener("abort", fail, { once: true });
  });
  timedOut.catch(() => {});
  const bounded = new ReadableStream<Uint8Array>({
    async pull(out) {
      try {
        // The signal aborts a real fetch's body too; racing it also bounds bodies that ignore it.
        const { done, value } = await Promise.race([reader.read(), timedOut]);
        if (done) {
          clearTimeout(timer);
          out.close();
          return;
        }
        seen += value.byteLength;
        if (maxBytes !== undefined && seen > maxBytes) {
          throw new OutboundRefusedError("Response too large.", "too_large");
        }
        out.enqueue(value);
      } catch (err) {
        clearTimeout(timer);
        void reader.cancel().catch(() => {});
        out.error(
          err instanceof OutboundRefusedError
            ? err
            : controller.signal.aborted
              ? new OutboundRefusedError("Timed out.", "timeout")
              : err,
        );
      }
    },
    cancel(reason) {
      clearTimeout(timer);
      return reader.cancel(reason);
    },
  });
  return new Response(bounded, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** A body whose first read fails: the declared length was already past the bound. */
function tooLargeResponse(res: Response): Response {
  const failing = new ReadableStream<Uint8Array>({
    start(out) {
      out.error(new OutboundRefusedError("Response too large.", "too_large"));
    },
  });
  return new Response(failing, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** The body as JSON, or null when it is not JSON. Errors of a bounded body (too large, timeout) propagate. */
export async function readGuardedJson<T>(res: Response): Promise<T | null> {
  const text = await res.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
