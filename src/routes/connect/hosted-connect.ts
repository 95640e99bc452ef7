import type { Context } from "hono";
import { bindingCookie, browserBinding } from "../../connect/browser";
import {
  authorizePage,
  CONNECT_FORM_MAX_BYTES,
  linkPage,
  type NetworkChoice,
  resultPage,
  selectionPage,
} from "../../connect/pages";
import { connectedResponse, html, seeOther } from "../../connect/respond";
import { AppError } from "../../lib/errors";
import { readBoundedText } from "../../lib/read-body";
import { ConnectError } from "../../platforms/connect";
import { allConnectors, connectorFor } from "../../platforms/registry";
import { FLOW_ENDED } from "../../services/connect/complete-connect";
import { type LinkLookup, type LiveLink, linkExists, resolveConnectLink } from "../../services/connect/connect-links";
import { issuingKeyLive, issuingPersonLive, KEY_ENDED } from "../../services/connect/issuing-key";
import { requesterOf } from "../../services/connect/requester";
import { consumeSelection, type OpenSelection, readSelection } from "../../services/connect/selections";
import { normalizeInstance, startConnect } from "../../services/connect/start-connect";
import { bindingLifetimeSeconds, bindState, readUnboundState } from "../../services/connect/states";
import { type ConnectWindow, throttleConnect } from "../../services/connect/throttle";
import { mac, macMatches } from "../../services/connect/tokens";
import { upsertAccounts } from "../../services/connect/upsert-accounts";
import { PERSON_ENDED } from "../../services/people/issued-by";
import { verifyBluesky } from "../../services/social-accounts/verify-account";
import type { App, AppEnv } from "../../types";

/**
 * The hosted connect pages (`/connect/…`), outside the JSON API: the link page, the start of each flow, the
 * Bluesky app-password form and the selection page. Forms are CSRF-safe: each carries a MAC of the page's own
 * token (a cross-site page cannot know it) and cross-site submissions (Sec-Fetch-Site / Origin) are refused.
 */
const LINK_CSRF = "connect-link-form";
const SELECT_CSRF = "connect-selection-form";
const AUTHORIZE_CSRF = "connect-authorize-form";

const GONE = "This connect link has expired or is unknown. Ask for a new one.";

/**
 * The page for a token that names no live link: 404 unknown or expired, 410 when its API key has ended or the person
 * who made it left the workspace.
 */
function linkRefused(c: Context<AppEnv>, found: Exclude<LinkLookup, { link: LiveLink }>): Response {
  if (found.refused === "key_ended" || found.refused === "person_ended") {
    const requester = { workspace: found.workspaceName, purpose: found.purpose };
    const text = found.refused === "key_ended" ? KEY_ENDED : PERSON_ENDED;
    return html(c, resultPage({ ok: false, title: "Link withdrawn", text, requester }), 410);
  }
  return html(c, resultPage({ ok: false, title: "Link expired", text: GONE }), 404);
}

function crossSite(c: Context<AppEnv>): boolean {
  const site = c.req.header("Sec-Fetch-Site");
  if (site && site !== "same-origin" && site !== "none") return true;
  const origin = c.req.header("Origin");
  const own = [new URL(c.req.url).origin, c.get("service").config.PUBLIC_URL].filter(Boolean);
  // "null" is what browsers send under Referrer-Policy: no-referrer; the form MAC still has to match.
  return !!origin && origin !== "null" && !own.includes(origin);
}

/** Read only after the page's token was found: an unknown token costs no reading. Bounded (src/lib/read-body.ts). */
async function readForm(c: Context<AppEnv>): Promise<URLSearchParams> {
  const type = c.req.header("Content-Type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded")) throw new AppError("bad_request", "Expected a form.");
  return new URLSearchParams(await readBoundedText(c.req.raw, CONNECT_FORM_MAX_BYTES));
}

function networks(c: Context<AppEnv>): NetworkChoice[] {
  const config = c.get("service").config;
  return allConnectors()
    .filter((n) => n.configured(config))
    .map((n) => ({ platform: n.platform, label: n.label, needsInstance: !!n.needsInstance }));
}

async function renderLink(
  c: Context<AppEnv>,
  link: LiveLink,
  token: string,
  status: 200 | 403 | 409 | 422 = 200,
  message?: { kind: "error" | "ok"; text: string },
) {
  const body = linkPage({
    action: `/connect/${token}/start`,
    blueskyAction: `/connect/${token}/bluesky`,
    csrf: await mac(c.get("service"), LINK_CSRF, token),
    networks: networks(c),
    requester: { workspace: link.workspaceName, purpose: link.purpose },
    message,
  });
  return html(c, body, status);
}

const clientIp = (c: Context<AppEnv>) => c.req.header("CF-Connecting-IP") ?? "unknown";

/** The live link and a checked form, or the page to answer with instead; counted in the link's and IP's window. */
async function linkForm(
  c: Context<AppEnv>,
  window: ConnectWindow,
): Promise<{ link: LiveLink; form: URLSearchParams; token: string } | { response: Response }> {
  const token = c.req.param("token") ?? "";
  const service = c.get("service");
  const found = await resolveConnectLink(service, token);
  if ("refused" in found) return { response: linkRefused(c, found) };
  const { link } = found;
  const { CONNECT_STARTS_PER_MINUTE, CONNECT_PASSWORD_TRIES_PER_MINUTE } = service.config;
  const limit = window === "starts" ? CONNECT_STARTS_PER_MINUTE : CONNECT_PASSWORD_TRIES_PER_MINUTE;
  await throttleConnect(c.env, window, limit, { ip: clientIp(c), linkId: link.id });
  const form = await readForm(c);
  if (crossSite(c) || !(await macMatches(service, LINK_CSRF, token, form.get("csrf") ?? ""))) {
    return { response: await renderLink(c, link, token, 403, { kind: "error", text: "The form expired. Try again." }) };
  }
  return { link, form, token };
}

/** A selection whose flow's API key has ended, or whose link was deleted, is refused like its callback would be. */
async function selectionEnded(c: Context<AppEnv>, selection: OpenSelection): Promise<Response | null> {
  const service = c.get("service");
  const linkId = selection.payload.link_id;
  if (
    (await issuingKeyLive(service, selection.apiKeyId)) &&
    (await issuingPersonLive(service, selection.workspaceId, selection.createdByUserId, selection.createdAt)) &&
    !(linkId && !(await linkExists(service, linkId)))
  ) {
    return null;
  }
  const requester = await requesterOf(service, selection.workspaceId, linkId);
  return html(c, resultPage({ ok: false, title: "The account was not connected", text: FLOW_ENDED, requester }), 403);
}

const AUTHORIZE_GONE =
  "This sign-in link was already opened in a browser, or has expired. Ask for a new one: each link works in one browser.";
const authorizeGone = (c: Context<AppEnv>) =>
  html(c, resultPage({ ok: false, title: "Sign-in link used", text: AUTHORIZE_GONE }), 410);

const selectionExpired = (c: Context<AppEnv>) =>
  html(
    c,
    resultPage({
      ok: false,
      title: "Selection expired",
      text: "This selection was used or has expired. Connect again.",
    }),
    404,
  );

/** A selection sealed under a key the server no longer has (ConnectError from selections.ts): said as such. */
async function unlessUnreadable<T>(c: Context<AppEnv>, read: () => Promise<T>): Promise<T | { page: Response }> {
  try {
    return await read();
  } catch (err) {
    if (!(err instanceof ConnectError)) throw err;
    return { page: html(c, resultPage({ ok: false, title: "The account was not connected", text: err.message }), 400) };
  }
}
const isPage = (v: unknown): v is { page: Response } => typeof v === "object" && v !== null && "page" in v;

export function registerHostedConnect(app: App) {
  app.get("/connect/select/:token", async (c) => {
    const token = c.req.param("token");
    const service = c.get("service");
    const selection = await unlessUnreadable(c, () => readSelection(service, token));
    if (isPage(selection)) return selection.page;
    if (!selection) return selectionExpired(c);
    const ended = await selectionEnded(c, selection);
    if (ended) return ended;
    return html(c, await renderSelection(c, token, selection));
  });

  app.post("/connect/select/:token", async (c) => {
    const token = c.req.param("token");
    const service = c.get("service");
    const selection = await unlessUnreadable(c, () => readSelection(service, token));
    if (isPage(selection)) return selection.page;
    if (!selection) return selectionExpired(c);
    const ended = await selectionEnded(c, selection);
    if (ended) return ended;
    const form = await readForm(c);
    if (crossSite(c) || !(await macMatches(service, SELECT_CSRF, token, form.get("csrf") ?? ""))) {
      return html(c, await renderSelection(c, token, selection, "The form expired. Try again."), 403);
    }
    const connector = connectorFor(selection.platform);
    const max = selection.payload.candidates.length;
    const picks = [...new Set(form.getAll("account").map(Number))].filter(
      (i) => Number.isInteger(i) && i >= 0 && i < max,
    );
    if (picks.length === 0 || (connector?.selection === "one-of" && picks.length !== 1)) {
      return html(c, await renderSelection(c, token, selection, "Pick at least one account."), 422);
    }
    // Consumed only now, so a form error above leaves the selection usable; consumed once, so a double submit
    // cannot store twice.
    const consumed = await unlessUnreadable(c, () => consumeSelection(service, token));
    if (isPage(consumed)) return consumed.page;
    if (!consumed) {
      return html(
        c,
        resultPage({
          ok: false,
          title: "Already connected",
          text: "This selection was already used.",
          requester: await requesterOf(service, selection.workspaceId, selection.payload.link_id),
        }),
        409,
      );
    }
    const chosen = picks.map((i) => consumed.payload.candidates[i]!);
    const accounts = await upsertAccounts(service, consumed.workspaceId, chosen);
    const requester = await requesterOf(service, consumed.workspaceId, consumed.payload.link_id);
    return connectedResponse(c, consumed.platform, accounts, consumed.payload.redirect_url, requester);
  });

  // The first-party hop of an API-started flow: a page naming who asks; "Continue" binds this browser and goes on.
  app.get("/connect/authorize/:nonce", async (c) => {
    const nonce = c.req.param("nonce");
    const service = c.get("service");
    const state = await readUnboundState(service, nonce);
    if (!state) return authorizeGone(c);
    const requester = await requesterOf(service, state.workspaceId, null);
    const label = connectorFor(state.platform)?.label ?? state.platform;
    const csrf = await mac(service, AUTHORIZE_CSRF, nonce);
    return html(c, authorizePage({ action: `/connect/authorize/${nonce}`, csrf, label, requester: requester! }));
  });

  app.post("/connect/authorize/:nonce", async (c) => {
    const nonce = c.req.param("nonce");
    const service = c.get("service");
    if (!(await readUnboundState(service, nonce))) return authorizeGone(c);
    await throttleConnect(c.env, "starts", service.config.CONNECT_STARTS_PER_MINUTE, { ip: clientIp(c), linkId: null });
    const form = await readForm(c);
    if (crossSite(c) || !(await macMatches(service, AUTHORIZE_CSRF, nonce, form.get("csrf") ?? ""))) {
      return html(c, resultPage({ ok: false, title: "The form expired", text: "Open the sign-in link again." }), 403);
    }
    const binding = await browserBinding(c);
    const bound = await bindState(service, nonce, binding.hash);
    if (!bound) return authorizeGone(c);
    const res = seeOther(bound.authorizeUrl);
    res.headers.append("Set-Cookie", bindingCookie(binding, bindingLifetimeSeconds(service.config)));
    return res;
  });

  app.get("/connect/:token", async (c) => {
    const token = c.req.param("token");
    const found = await resolveConnectLink(c.get("service"), token);
    if ("refused" in found) return linkRefused(c, found);
    return renderLink(c, found.link, token);
  });

  app.post("/connect/:token/start", async (c) => {
    const checked = await linkForm(c, "starts");
    if ("response" in checked) return checked.response;
    const { link, form, token } = checked;
    const service = c.get("service");
    // The flow starts in this browser: bind it here (src/connect/browser.ts), the callback checks the cookie.
    const binding = await browserBinding(c);
    try {
      const { url } = await startConnect(
        service,
        link.workspaceId,
        {
          platform: form.get("platform") ?? "",
          instance: form.get("instance"),
          redirect_url: link.redirectUrl,
          link_id: link.id,
        },
        { apiKeyId: link.apiKeyId, browserHash: binding.hash },
      );
      const res = seeOther(url);
      res.headers.append("Set-Cookie", bindingCookie(binding, bindingLifetimeSeconds(service.config)));
      return res;
    } catch (err) {
      if (err instanceof AppError && err.code === "validation") {
        return renderLink(c, link, token, 422, { kind: "error", text: err.message });
      }
      throw err;
    }
  });

  app.post("/connect/:token/bluesky", async (c) => {
    const checked = await linkForm(c, "passwords");
    if ("response" in checked) return checked.response;
    const { link, form, token } = checked;
    const serviceField = (form.get("service") ?? "").trim();
    const allowHttp = c.get("service").config.MEDIA_FETCH_ALLOW_PRIVATE;
    const pds = serviceField ? normalizeInstance(serviceField, allowHttp) : "https://bsky.social";
    if (!pds) return renderLink(c, link, token, 422, { kind: "error", text: "The server must be an https address." });
    try {
      const { config } = c.get("service");
      const policy = { allowPrivate: config.MEDIA_FETCH_ALLOW_PRIVATE, plcUrl: config.BLUESKY_PLC_URL };
      const session = await verifyBluesky(policy, pds, form.get("identifier") ?? "", form.get("app_password") ?? "");
      const accounts = await upsertAccounts(c.get("service"), link.workspaceId, [
        {
          platform: "bluesky",
          platformUserId: session.did,
          displayName: session.handle,
          username: session.handle,
          avatarUrl: null,
          credentials: session.credentials,
          tokenExpiresAt: null,
          meta: { service: pds, did: session.did },
          server: session.pds,
        },
      ]);
      if (link.redirectUrl) return connectedResponse(c, "bluesky", accounts, link.redirectUrl, null);
      return renderLink(c, link, token, 200, { kind: "ok", text: `Connected ${session.handle} on Bluesky.` });
    } catch (err) {
      // 422: the credentials or the server (and its DID proof); 409: the account is bound to another server.
      if (err instanceof AppError && (err.code === "validation" || err.code === "conflict")) {
        return renderLink(c, link, token, err.code === "conflict" ? 409 : 422, { kind: "error", text: err.message });
      }
      throw err;
    }
  });
}

async function renderSelection(
  c: Context<AppEnv>,
  token: string,
  selection: NonNullable<Awaited<ReturnType<typeof readSelection>>>,
  error?: string,
): Promise<string> {
  const connector = connectorFor(selection.platform);
  const requester = await requesterOf(c.get("service"), selection.workspaceId, selection.payload.link_id);
  return selectionPage({
    action: `/connect/select/${token}`,
    csrf: await mac(c.get("service"), SELECT_CSRF, token),
    label: connector?.label ?? selection.platform,
    kind: connector?.selection === "one-of" ? "one-of" : "many",
    choices: selection.payload.candidates.map((cand) => ({
      name: cand.displayName,
      username: cand.username,
      detail: cand.detail,
      avatarUrl: cand.avatarUrl,
    })),
    requester,
    error,
  });
}
