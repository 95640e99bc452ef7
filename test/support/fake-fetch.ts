/**
 * Outbound HTTP in tests goes to fakes: handlers registered per origin. A call to any other origin fails the
 * test (it is recorded and thrown from afterEach, and the call itself rejects).
 */
type Handler = (request: Request) => Response | Promise<Response>;

const handlers = new Map<string, Handler>();
const unexpected: string[] = [];
const realFetch = globalThis.fetch.bind(globalThis);
export const outboundCalls: { method: string; url: string }[] = [];

globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const handler = handlers.get(url.origin);
  outboundCalls.push({ method: request.method, url: request.url });
  if (!handler) {
    unexpected.push(`${request.method} ${request.url}`);
    throw new TypeError(`Unexpected outbound request in test: ${request.method} ${request.url}`);
  }
  const fault = takeFault(request.method, url);
  const response = await handler(request);
  if (!fault) return response;
  // The fake has done the work (the post exists); only the answer is lost or replaced.
  await response.body?.cancel();
  if (fault.kind === "drop") throw new TypeError("Network connection lost.");
  if (fault.kind === "timeout") throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
  return new Response(JSON.stringify(fault.body ?? { error: "internal" }), {
    status: fault.status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
};

/**
 * "Create then fail": the fake handles the request as usual — the post is made — and then the answer never
 * arrives (`drop`: the connection breaks; `timeout`: no answer before the caller's deadline) or is replaced by a
 * 5xx carrying the network's error envelope.
 */
export type AfterHandlingFault =
  | { kind: "drop" }
  | { kind: "timeout" }
  | { kind: "status"; status: number; body?: unknown };

const faults: { method: string; path: string | RegExp; fault: AfterHandlingFault }[] = [];

/** The next matching request (method, and pathname or a pattern of it) is handled, then `fault` strikes. */
export function failAfterHandling(method: string, path: string | RegExp, fault: AfterHandlingFault, times = 1): void {
  for (let i = 0; i < times; i++) faults.push({ method, path, fault });
}

function takeFault(method: string, url: URL): AfterHandlingFault | undefined {
  const index = faults.findIndex(
    (f) => f.method === method && (typeof f.path === "string" ? f.path === url.pathname : f.path.test(url.pathname)),
  );
  return index < 0 ? undefined : faults.splice(index, 1)[0]!.fault;
}

/** Registers a fake for one origin (`https://bsky.fake`); returns a function that removes it. */
export function fakeOrigin(origin: string, handler: Handler): () => void {
  handlers.set(new URL(origin).origin, handler);
  return () => handlers.delete(new URL(origin).origin);
}

export function assertNoUnexpectedFetches(): void {
  // A fault that never struck means the test did not exercise what it claims to.
  const unused = faults.splice(0).map((f) => `${f.method} ${f.path}`);
  if (unused.length > 0) throw new Error(`Injected faults never struck: ${unused.join(", ")}`);
  if (unexpected.length > 0) {
    const list = unexpected.splice(0).join(", ");
    throw new Error(`Unexpected outbound requests: ${list}`);
  }
}

export { realFetch };

/** The fake currently serving an origin (so a wrapper can answer some paths and hand the rest on). */
export function currentFake(origin: string): Handler | undefined {
  return handlers.get(new URL(origin).origin);
}
