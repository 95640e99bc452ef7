import { platformFetch, readJson } from "../http";
import { type AdapterContext, PlatformError } from "../types";
import { graphError } from "./errors";
import type { GraphErrorBody } from "./types";

/**
 * Minimal Graph API client used by Facebook, both Instagrams and Threads. The token travels in the
 * `Authorization: Bearer` header (every Meta host accepts it), never in a URL, so it cannot leak into logs.
 * Parameters go as a form body (`form`) or JSON (`json`), which Graph treats alike.
 */
export type GraphParams = Record<string, string | number | boolean | undefined | null | unknown[] | object>;

export interface GraphClientOptions {
  /** Platform label for messages ("Instagram"). */
  label: string;
  /** Scheme + host from Config, without a trailing slash. */
  host: string;
  /** Version path segment ("v26.0"), kept in one place per adapter. */
  version: string;
  token: string;
}

export function encodeParams(params: GraphParams): URLSearchParams {
  const out = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    out.set(k, typeof v === "object" ? JSON.stringify(v) : String(v));
  }
  return out;
}

export class GraphClient {
  constructor(
    private readonly ctx: AdapterContext,
    private readonly opts: GraphClientOptions,
  ) {}

  get label(): string {
    return this.opts.label;
  }

  url(path: string, query?: GraphParams): string {
    const qs = query ? encodeParams(query).toString() : "";
    return `${this.opts.host}/${this.opts.version}${path}${qs ? `?${qs}` : ""}`;
  }

  get<T>(path: string, query?: GraphParams): Promise<T> {
    return this.send<T>(this.url(path, query), { method: "GET" });
  }

  /** POST with a form body (Instagram/Threads style: `image_url=…&caption=…`). */
  postForm<T>(path: string, params: GraphParams): Promise<T> {
    return this.send<T>(this.url(path), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: encodeParams(params).toString(),
    });
  }

  /** POST with a JSON body (Facebook Page style: `{"message":…,"attached_media":[…]}`). */
  postJson<T>(path: string, body: Record<string, unknown>, query?: GraphParams): Promise<T> {
    return this.send<T>(this.url(path, query), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  }

  /** POST with the parameters in the query string and no body (Reels `upload_phase=…` calls). */
  postQuery<T>(path: string, query: GraphParams): Promise<T> {
    return this.send<T>(this.url(path, query), { method: "POST" });
  }

  /** Any Meta URL returned by a previous answer (e.g. rupload); `authScheme` "OAuth" as rupload wants. */
  async send<T>(
    url: string,
    init: RequestInit & { headers?: Record<string, string> },
    authScheme: "Bearer" | "OAuth" = "Bearer",
  ): Promise<T> {
    const res = await platformFetch(this.ctx.fetch, this.opts.label, url, {
      ...init,
      headers: { ...(init.headers ?? {}), authorization: `${authScheme} ${this.opts.token}` },
    });
    const body = await readJson<T & GraphErrorBody>(res);
    if (!res.ok || (body && typeof body === "object" && "error" in body && body.error)) {
      throw graphError(this.opts.label, res, body, [this.opts.token]);
    }
    if (body === null) {
      throw new PlatformError("transient", `${this.opts.label} returned an empty answer.`, { status: res.status });
    }
    return body;
  }
}

export function requireToken(label: string, token: string | undefined): string {
  if (!token) throw new PlatformError("auth", `The ${label} account has no access token.`);
  return token;
}
