import type { ServiceContext } from "../../context";
import { AppError, validationError } from "../../lib/errors";
import { formatIso } from "../../lib/time";
import { ConnectError } from "../../platforms/connect";
import { connectorFor } from "../../platforms/registry";
import { callbackUrl, connectContext, publicBase } from "./connect-context";
import { createState, recordAuthorizeUrl } from "./states";
import { pkcePair } from "./tokens";

export interface StartConnectInput {
  platform: string;
  redirect_url?: string | null;
  /** Mastodon instance (`https://mastodon.social` or `mastodon.social`). */
  instance?: string | null;
  /** Set when the flow starts from a hosted connect link. */
  link_id?: string | null;
}

/** Who starts the flow: the API key (the caller's, or the one that made the link); the flow ends with it. */
export interface FlowOrigin {
  apiKeyId: string | null;
  /** The signed-in person who starts the flow through the API (issue 27); it ends with their membership. */
  createdByUserId?: string | null;
  /**
   * SHA-256 of the browser's binding cookie when the flow starts in that browser (the hosted link page). Without it
   * (the API) the answer is our first-party hop `/connect/authorize/<nonce>`, which binds the first browser that
   * continues from it (src/connect/browser.ts).
   */
  browserHash?: string | null;
}

/**
 * `redirect_url` must be http(s) on an origin of CONNECT_REDIRECT_ALLOWLIST, or a page of this server's own
 * dashboard (`<PUBLIC_URL>/app/…`: its Accounts page starts a connection and comes back to itself, issue 27).
 */
export function allowedRedirect(ctx: ServiceContext, value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return false;
  if (ctx.config.CONNECT_REDIRECT_ALLOWLIST.includes(url.origin)) return true;
  return (
    url.origin === new URL(publicBase(ctx)).origin && (url.pathname === "/app" || url.pathname.startsWith("/app/"))
  );
}

/**
 * A Mastodon instance or Bluesky server typed by a person, as an origin: https, or also plain http where the
 * Worker may reach private addresses (`MEDIA_FETCH_ALLOW_PRIVATE`, local development: the sandbox's
 * `http://127.0.0.1:…` servers, README "Local sandbox").
 */
export function normalizeInstance(value: string, allowHttp = false): string | null {
  const raw = value.trim();
  try {
    const url = new URL(/^https?:\/\//i.test(raw) ? raw : `https://${raw}`);
    const schemeOk = url.protocol === "https:" || (allowHttp && url.protocol === "http:");
    if (!schemeOk || url.username || url.password) return null;
    return url.origin;
  } catch {
    return null;
  }
}

/**
 * Starts an OAuth connection for the workspace: a single-use state (with the PKCE verifier) in D1 and the URL to
 * open — the network's consent URL for a browser already bound, else our hop that binds one. Errors are 422 with
 * the field at fault.
 */
export async function startConnect(
  ctx: ServiceContext,
  workspaceId: string,
  input: StartConnectInput,
  origin: FlowOrigin,
): Promise<{ url: string; expires_at: string }> {
  const connector = connectorFor(input.platform);
  if (!connector) {
    const reason =
      input.platform === "bluesky"
        ? "Bluesky connects with an app password: use POST /api/social-accounts or the hosted connect page."
        : "The selected platform cannot be connected here.";
    throw validationError({ platform: [reason] });
  }
  if (!connector.configured(ctx.config)) {
    throw validationError({ platform: [`${connector.label} is not configured on this server (app id and secret).`] });
  }
  const redirectUrl = input.redirect_url ?? null;
  if (redirectUrl !== null && !allowedRedirect(ctx, redirectUrl)) {
    throw validationError({ redirect_url: ["The redirect url is not on this server's allow-list."] });
  }
  let instance: string | null = null;
  if (connector.needsInstance) {
    instance = input.instance ? normalizeInstance(input.instance, ctx.config.MEDIA_FETCH_ALLOW_PRIVATE) : null;
    if (!instance)
      throw validationError({ instance: ["The instance field must be an https address of a Mastodon server."] });
  }
  const pkce = connector.pkce ? await pkcePair() : null;
  const { state, nonce, expiresAt } = await createState(
    ctx,
    workspaceId,
    connector.platform,
    {
      code_verifier: pkce?.verifier ?? null,
      redirect_url: redirectUrl,
      instance,
      link_id: input.link_id ?? null,
    },
    origin.apiKeyId,
    origin.browserHash ?? null,
    origin.createdByUserId ?? null,
  );
  try {
    const url = await connector.authorizeUrl(connectContext(ctx), {
      state,
      redirectUri: callbackUrl(ctx, connector.platform),
      codeChallenge: pkce?.challenge ?? null,
      instance,
    });
    if (origin.browserHash) return { url, expires_at: formatIso(expiresAt) };
    await recordAuthorizeUrl(ctx, nonce, url);
    return { url: `${publicBase(ctx)}/connect/authorize/${nonce}`, expires_at: formatIso(expiresAt) };
  } catch (err) {
    if (err instanceof ConnectError)
      throw new AppError("validation", err.message, { errors: { instance: [err.message] } });
    throw err;
  }
}
