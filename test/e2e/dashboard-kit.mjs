// The dashboard's browser tests (test/e2e/dashboard-*.test.mjs) and bench/dashboard share this kit:
// - `startDashboard()`: the built app (npm run build:web), the local stack of
//   `npm run dev` (sandbox/start.mjs `startStack()`: the sandbox networks, D1 migrations, `wrangler dev`) on a free
//   port with its own state, and the demo workspace made by the admin bootstrap with an owner who has a password;
// - `launchChromium()`: the system Chromium through playwright-core, loopback only;
// - `signIn(page, …)`: the sign-in form as a person fills it;
// - `checkA11y(page)`: axe-core (a local file evaluated in the page: no third-party origin, and the page's CSP stays
//   on) → its serious and critical violations.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { ROOT } from "../../sandbox/start.mjs";
import { buildWeb } from "../../scripts/build-web.mjs";
import { ARTIFACTS, CHROMIUM, chromiumMissing, freePort, launchChromium, SKIP } from "./kit.mjs";
import { createWorkspace, hasSharedStack, sharedStack, startE2eStack } from "./shared-stack.mjs";

export { ARTIFACTS, CHROMIUM, chromiumMissing, freePort, launchChromium, ROOT, SKIP };
export const OWNER = { email: "demo@example.com", name: "Demo Owner", password: "demo-owner-password-1" };

/**
 * The built dashboard, the local stack and the demo workspace with its owner. Returns {base, key (the workspace's
 * API key, for setup through the API), workspaceId, stack, api(method, path, body, {key, cookie}), close()}.
 */
export async function startDashboard() {
  // The same build `npm test` made before its parts started writes no file (only changed bytes are written).
  await buildWeb();
  // Under npm test the stack the browser files share (test/e2e/shared-stack.mjs); alone (bench/dashboard) one of its own.
  const stack = hasSharedStack() ? sharedStack() : await startE2eStack();
  const { base } = stack;
  /** A JSON call: with `key` (Bearer) or `cookie` (a session; same-origin Origin for unsafe methods). */
  const api = async (method, p, body, { key, cookie } = {}) => {
    const headers = {};
    if (key) headers.Authorization = `Bearer ${key}`;
    if (cookie) headers.Cookie = cookie;
    // A browser sends its Origin with every unsafe request (the cookie-authenticated ones must carry it).
    if (method !== "GET") headers.Origin = base;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(`${base}${p}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    let json = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = text;
    }
    return { status: res.status, body: json, headers: res.headers };
  };
  const ws = await createWorkspace(base, "Demo workspace", OWNER);
  if (ws.status !== 201) {
    await stack.close();
    throw new Error(`admin bootstrap: ${ws.status} ${JSON.stringify(ws.body)}\n${stack.log()}`);
  }
  return {
    base,
    key: ws.body.plain_token,
    workspaceId: ws.body.workspace?.id,
    stack,
    api: (method, p, body, auth = { key: ws.body.plain_token }) => api(method, p, body, auth),
    /** A person's session cookie ("name=value") from POST /api/session. */
    async sessionCookie(email, password) {
      const res = await fetch(`${base}/api/session`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: base },
        body: JSON.stringify({ email, password }),
      });
      if (res.status !== 200) throw new Error(`sign-in of ${email}: ${res.status} ${await res.text()}`);
      return res.headers
        .getSetCookie()
        .find((c) => c.startsWith("__Host-esp-session="))
        ?.split(";")[0];
    },
    close: () => stack.close(),
  };
}

/**
 * A new page in its own context (its own cookies) at `width` × `height` in `timezoneId`, that records CSP refusals and uncaught
 * exceptions (`page.problems`; the tests assert it stays empty). A 401 from GET /api/me before sign-in is the
 * dashboard asking whether someone is signed in, not a problem.
 */
export async function newPage(browser, { width = 1440, height = 900, timezoneId = "UTC" } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, reducedMotion: "reduce", timezoneId });
  const page = await context.newPage();
  page.problems = [];
  page.on("pageerror", (err) => page.problems.push(`uncaught: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error" && /Content Security Policy/i.test(msg.text())) page.problems.push(`CSP: ${msg.text()}`);
  });
  return page;
}

/** Fills and sends the sign-in form; resolves once the signed-in shell (its main navigation) shows. */
export async function signIn(page, base, { email, password }) {
  await page.goto(`${base}/app`);
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("navigation", { name: "Main" }).waitFor();
}

let axeSource;
/** Moderate rules the dashboard keeps clean as well (issue 35: the composer's h3 under its h1). */
const MODERATE_TOO = new Set(["heading-order"]);
/** axe-core's script (the devDependency; a checkout without it fails here, saying so, and only the a11y checks). */
function axe() {
  try {
    axeSource ??= readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  } catch (err) {
    throw new Error(`axe-core is not installed (npm install): ${err.message}`);
  }
  return axeSource;
}

/**
 * axe-core's serious and critical violations (and the moderate heading-order) on the page as it is now (WCAG 2.x A/AA
 * rules and best practices, with the experimental label-content-name-mismatch), one
 * line each: "rule (impact): help — selector, selector…". The script is evaluated through the DevTools protocol, so
 * the page's own CSP (no inline scripts) stays in force.
 */
export async function checkA11y(page) {
  const loaded = await page.evaluate(() => typeof window.axe === "object");
  if (!loaded) await page.evaluate(axe());
  const result = await page.evaluate(() =>
    window.axe.run(document, {
      resultTypes: ["violations"],
      runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"],
      // Issue 35: label-content-name-mismatch (WCAG 2.5.3, "Label in Name") is one of axe's experimental rules, off
      // unless asked for by name.
      rules: { "label-content-name-mismatch": { enabled: true } },
    }),
  );
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical" || MODERATE_TOO.has(v.id))
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} — ${v.nodes
          .slice(0, 5)
          .map((n) => n.target.join(" "))
          .join(", ")}`,
    );
}

/** Saves a full-page screenshot under test-artifacts/ (for a failing step) and returns where the page was. */
export async function snapshotFailure(page, name) {
  if (!page || page.isClosed()) return "no page";
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true }).catch(() => {});
  // The text as rendered is what the person sees (biome.json: useDomNodeTextContent is off in test/e2e).
  const text = await page.evaluate(() => document.body?.innerText ?? "").catch(() => "");
  return `${page.url()}\n${text.slice(0, 1500)}`;
}
