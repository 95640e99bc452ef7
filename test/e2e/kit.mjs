// Small helpers the Node end-to-end tests share (the stack itself is sandbox/start.mjs's startStack()).
import { createServer } from "node:http";

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Polls `fn` until it returns a truthy value (that value), up to `timeoutMs`; throws naming `what` after that. */
export async function waitFor(fn, what, timeoutMs = 20_000, everyMs = 200) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
