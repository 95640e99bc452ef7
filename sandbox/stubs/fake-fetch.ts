// test/support/fake-fetch.ts replaces the global fetch of the workerd tests. In the sandbox a fake's handler is
// only registered here, per fake origin (`https://x.fake`), and sandbox/networks.ts hands it the requests that
// reach the network's loopback origin.
type Handler = (request: Request) => Response | Promise<Response>;
const handlers = new Map<string, Handler>();

export function fakeOrigin(origin: string, handler: Handler): () => void {
  const key = new URL(origin).origin;
  handlers.set(key, handler);
  return () => handlers.delete(key);
}

export function currentFake(origin: string): Handler | undefined {
  return handlers.get(new URL(origin).origin);
}
