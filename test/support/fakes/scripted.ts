/**
 * Shared bits of the platform fakes: JSON responses, a call log, and scripted one-off answers ("the next 2 calls
 * to POST /2/tweets answer 503") layered over each fake's normal behaviour.
 */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });

export interface LoggedCall {
  method: string;
  /** Path without the query string. */
  path: string;
  url: URL;
  headers: Headers;
}

type Responder = (req: Request) => Response | Promise<Response>;

export class ScriptedFake {
  readonly calls: LoggedCall[] = [];
  private scripted: { key: string; respond: Responder; times: number }[] = [];

  /** The next `times` calls to `"METHOD /path"` answer `respond` instead of the fake's normal behaviour. */
  inject(key: string, respond: Responder | (() => Response), times = 1): this {
    this.scripted.push({ key, respond: respond as Responder, times });
    return this;
  }

  count(key: string): number {
    return this.calls.filter((c) => `${c.method} ${c.path}` === key).length;
  }

  protected log(req: Request): { key: string; url: URL } {
    const url = new URL(req.url);
    this.calls.push({ method: req.method, path: url.pathname, url, headers: req.headers });
    return { key: `${req.method} ${url.pathname}`, url };
  }

  protected scriptedFor(key: string): Responder | undefined {
    const entry = this.scripted.find((s) => s.key === key && s.times > 0);
    if (!entry) return undefined;
    entry.times -= 1;
    return entry.respond;
  }
}

/** A JWT-shaped token with an `exp` claim (Bluesky access JWTs are read for their expiry). */
export function fakeJwt(expSeconds: number, sub = "did:plc:fake"): string {
  const b64 = (o: unknown) => btoa(JSON.stringify(o)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
  return `${b64({ alg: "ES256K", typ: "at+jwt" })}.${b64({ sub, exp: expSeconds, jti: crypto.randomUUID() })}.sig`;
}
