import { env } from "cloudflare:workers";
import worker from "../../src/index";

/**
 * A request to the Worker, answered by its default export called in this test's own I/O context.
 *
 * Not through `exports.default` (the pool's loopback, SELF): with @cloudflare/vitest-pool-workers 0.23 on workerd
 * 1.20260815 each request that way costs more than the one before it in the same runtime, the Worker's own work or
 * not: 100 requests for a bare `new Response()` took 0.3 s, then 0.9, 2.2, 4.0, 6.5 s, and a runtime that served 12
 * copies of one file took 0.9 s for the first and 23 s for the last (docs/testing.md, fourth round). Called
 * directly, the same 100 requests take 5 ms however many came before.
 *
 * The Worker sees what the runtime would give it: the request, the bindings (the suite's, or `bindings` — the same
 * with a var changed, passed as one object kept for the file: the config is cached per bindings object), and an
 * execution context whose
 * `waitUntil` lets the background work run on (as the runtime does after the answer) and logs a rejection instead
 * of failing whichever test happens to be running. A few files still go through `exports.default`: those about the
 * runtime's own handling of a request (a body the Worker leaves unread, a client that goes away), and some media
 * files that send one or two requests each (serve-media, fitted-media, alt-text, media-tools).
 */
export function workerFetch(request: Request, bindings: Cloudflare.Env = env): Promise<Response> {
  return Promise.resolve(worker.fetch(request as Parameters<typeof worker.fetch>[0], bindings, executionContext()));
}

function executionContext(): ExecutionContext {
  return {
    waitUntil(promise: Promise<unknown>) {
      promise.catch((err: unknown) => console.error("waitUntil rejected:", err));
    },
    passThroughOnException() {},
    props: {},
  } as unknown as ExecutionContext;
}
