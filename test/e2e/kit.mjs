// Small helpers the Node end-to-end tests share (the stack itself is sandbox/start.mjs's startStack()).
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { freePort } from "../../sandbox/free-port.mjs";
import { ROOT } from "../../sandbox/start.mjs";

export { freePort };

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const chromiumMissing = !existsSync(CHROMIUM);
export const SKIP = chromiumMissing
  ? `Chromium not installed at ${CHROMIUM} (apt-get install chromium); browser test skipped`
  : false;
export const ARTIFACTS = path.join(ROOT, "test-artifacts");

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

/** Headless Chromium (playwright-core), loopback only: every other host fails at once. */
export async function launchChromium() {
  const { chromium } = await import("playwright-core");
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ],
  });
}
