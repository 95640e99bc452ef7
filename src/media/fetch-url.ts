/**
 * Downloads for `POST /posts/{post}/media/from-url`: http(s) only, at most 3 redirects followed by hand so every
 * hop is checked, loopback / private / link-local / metadata destinations refused (unless allowed for local
 * development), one timeout for the whole download. The body is returned as a ByteSource so the media pipeline
 * can enforce its caps while streaming.
 *
 * Limits of the check: it sees the URL's host, not the address a name resolves to. Names that only exist inside a
 * network (`localhost`, `*.internal`, `*.local`, metadata names) are refused by name; Cloudflare's egress does not
 * route Worker subrequests to private networks, which covers public names that resolve to private addresses.
 */
import { type ByteSource, streamSource } from "./byte-source";

export const MAX_REDIRECTS = 3;

export class FetchRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FetchRefusedError";
  }
}

export interface FetchedBody {
  source: ByteSource;
  /** Final URL after redirects. */
  url: string;
  /** Clears the timeout; call when the body has been consumed or abandoned. */
  done: () => void;
}

const BLOCKED_NAMES = [/^localhost$/, /\.localhost$/, /\.local$/, /\.internal$/, /\.localdomain$/, /^metadata$/];

function ipv4Parts(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function privateIpv4([a, b, c]: number[]): boolean {
  if (a === undefined || b === undefined) return true;
  return (
    a === 0 || // "this" network
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) ||
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113) ||
    a >= 224 // multicast, reserved, broadcast
  );
}

function expandIpv6(host: string): number[] | null {
  let h = host;
  // Embedded IPv4 (::ffff:1.2.3.4) → two hextets.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (v4) {
    const p = ipv4Parts(v4[1] as string);
    if (!p) return null;
    h = `${h.slice(0, -(v4[1] as string).length)}${(((p[0] as number) << 8) | (p[1] as number)).toString(16)}:${(((p[2] as number) << 8) | (p[3] as number)).toString(16)}`;
  }
  const [left, right, extra] = h.split("::");
  if (extra !== undefined) return null;
  const l = left ? left.split(":") : [];
  const r = right !== undefined ? (right ? right.split(":") : []) : null;
  const groups = r === null ? l : [...l, ...Array(8 - l.length - r.length).fill("0"), ...r];
  if (groups.length !== 8) return null;
  const nums = groups.map((g) => Number.parseInt(g, 16));
  return nums.every((n) => Number.isInteger(n) && n >= 0 && n <= 0xffff) ? nums : null;
}

function privateIpv6(g: number[]): boolean {
  const [a = 0, b = 0, c = 0, d = 0, e = 0, f = 0, g6 = 0, h = 0] = g;
  if (a === 0 && b === 0 && c === 0 && d === 0 && e === 0) {
    if (f === 0 && g6 === 0 && (h === 0 || h === 1)) return true; // :: and ::1
    if (f === 0xffff || f === 0) return privateIpv4([g6 >> 8, g6 & 255, h >> 8, h & 255]); // v4-mapped / compatible
  }
  if (a === 0x64 && b === 0xff9b) return privateIpv4([g6 >> 8, g6 & 255, h >> 8, h & 255]); // NAT64
  if ((a & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((a & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((a & 0xff00) === 0xff00) return true; // multicast
  if (a === 0x2001 && b === 0xdb8) return true; // documentation
  return false;
}

/** Why a URL may not be fetched, or null when it may. */
export function refusalReason(url: URL, allowPrivate: boolean): string | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") return "Only http and https URLs are allowed.";
  if (url.username || url.password) return "URLs with credentials are not allowed.";
  if (allowPrivate) return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[")) {
    const groups = expandIpv6(host.slice(1, -1));
    return !groups || privateIpv6(groups) ? "Private addresses are not allowed." : null;
  }
  const v4 = ipv4Parts(host);
  if (v4) return privateIpv4(v4) ? "Private addresses are not allowed." : null;
  if (!host.includes(".") || BLOCKED_NAMES.some((re) => re.test(host)) || host === "metadata.google.internal")
    return "Private addresses are not allowed.";
  return null;
}

/**
 * GETs `raw`, following at most MAX_REDIRECTS redirects, each target checked again. Throws FetchRefusedError for a
 * refused destination, a non-2xx answer, too many redirects, or a timeout.
 */
export async function fetchMedia(
  raw: string,
  opts: { timeoutMs: number; allowPrivate: boolean },
): Promise<FetchedBody> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new FetchRefusedError("Timed out.")), opts.timeoutMs);
  const done = () => clearTimeout(timer);
  try {
    let url = new URL(raw);
    for (let hop = 0; ; hop++) {
      const reason = refusalReason(url, opts.allowPrivate);
      if (reason) throw new FetchRefusedError(reason);
      const res = await fetch(url.toString(), {
        redirect: "manual",
        signal: controller.signal,
        headers: { Accept: "image/*,video/*;q=0.9,*/*;q=0.5" },
      });
      if (res.status >= 300 && res.status < 400 && res.headers.get("Location")) {
        await res.body?.cancel().catch(() => {});
        if (hop >= MAX_REDIRECTS) throw new FetchRefusedError("Too many redirects.");
        url = new URL(res.headers.get("Location") as string, url);
        continue;
      }
      if (!res.ok || !res.body) {
        await res.body?.cancel().catch(() => {});
        throw new FetchRefusedError(`Answered ${res.status}.`);
      }
      const inner = streamSource(res.body);
      // The signal aborts a real fetch's body too; racing it also bounds bodies that ignore it.
      const timedOut = new Promise<never>((_, reject) => {
        const fail = () => reject(new FetchRefusedError("Timed out."));
        if (controller.signal.aborted) fail();
        else controller.signal.addEventListener("abort", fail, { once: true });
      });
      timedOut.catch(() => {});
      const source: ByteSource = {
        read: async () => {
          try {
            return await Promise.race([inner.read(), timedOut]);
          } catch (err) {
            if (controller.signal.aborted) {
              await inner.cancel().catch(() => {});
              throw new FetchRefusedError("Timed out.");
            }
            throw err;
          }
        },
        cancel: (reason) => inner.cancel(reason),
      };
      return { source, url: url.toString(), done };
    }
  } catch (err) {
    done();
    if (err instanceof FetchRefusedError) throw err;
    throw new FetchRefusedError(controller.signal.aborted ? "Timed out." : "Unreachable.");
  }
}
