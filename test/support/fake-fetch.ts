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
  return handler(request);
};

/** Registers a fake for one origin (`https://bsky.fake`); returns a function that removes it. */
export function fakeOrigin(origin: string, handler: Handler): () => void {
  handlers.set(new URL(origin).origin, handler);
  return () => handlers.delete(new URL(origin).origin);
}

export function assertNoUnexpectedFetches(): void {
  if (unexpected.length > 0) {
    const list = unexpected.splice(0).join(", ");
    throw new Error(`Unexpected outbound requests: ${list}`);
  }
}

export { realFetch };
