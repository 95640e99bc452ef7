import type { Requester } from "../../connect/pages";
import type { ServiceContext } from "../../context";
import { type ConnectCandidate, ConnectError, type PlatformConnector } from "../../platforms/connect";
import { connectorFor } from "../../platforms/registry";
import type { SocialAccountResource } from "../../presenters/resources";
import { callbackUrl, connectContext } from "./connect-context";
import { linkExists } from "./connect-links";
import { issuingKeyLive, issuingPersonLive } from "./issuing-key";
import { requesterOf } from "./requester";
import { createSelection } from "./selections";
import { consumeState, EXPIRED_STATE } from "./states";
import { upsertAccounts } from "./upsert-accounts";

export interface CallbackQuery {
  code?: string;
  state?: string;
  error?: string;
  error_description?: string;
}

export type CallbackResult =
  | {
      kind: "connected";
      platform: string;
      accounts: SocialAccountResource[];
      redirectUrl: string | null;
      linkId: string | null;
      requester: Requester | null;
    }
  | { kind: "select"; selectionToken: string };

/** A failure that knows where the browser should go back to (`redirect_url?error=…`), when the state told us. */
export class ConnectFailure extends Error {
  constructor(
    readonly error: ConnectError,
    readonly redirectUrl: string | null,
    readonly linkId: string | null,
    readonly requester: Requester | null = null,
  ) {
    super(error.message);
  }
}

/** Scopes are hierarchical on some networks (Mastodon `write` covers `write:statuses`). */
function granted(scopes: string[], needed: string): boolean {
  if (scopes.includes(needed)) return true;
  const parent = needed.split(":")[0]!;
  return needed.includes(":") && parent !== needed && scopes.includes(parent);
}

export const FLOW_ENDED =
  "This connection was withdrawn: the API key that started it (or made its connect link) was revoked or has expired, or the link was deleted. Nothing was connected.";

/** How networks say "the user said no" (LinkedIn has its own words for it). */
const DENIED = new Set(["access_denied", "user_denied", "user_cancelled_login", "user_cancelled_authorize"]);

const NO_ACCOUNTS: Partial<Record<string, string>> = {
  facebook: "This Facebook login manages no Page this app can publish to. Create a Page or ask for a role on one.",
  "instagram-facebook":
    "None of this login's Facebook Pages has an Instagram professional account linked. Link one in the Page settings.",
  "linkedin-page": "This LinkedIn member administers no organization page.",
  youtube: "This Google account has no YouTube channel. Create one, then connect again.",
};

function needsPick(connector: PlatformConnector, candidates: ConnectCandidate[]): boolean {
  return connector.selection !== "single" && candidates.length > 1;
}

/**
 * The callback: consume the state (once), then code → tokens → accounts, check the granted scopes, and either
 * store the account(s) or keep them for the selection page. Nothing is stored when any step fails.
 */
export async function completeConnect(
  ctx: ServiceContext,
  platform: string,
  query: CallbackQuery,
  /** SHA-256 of the browser binding cookie the callback carried (src/connect/browser.ts). */
  browserHash: string | null,
): Promise<CallbackResult> {
  const connector = connectorFor(platform);
  if (!connector) throw new ConnectFailure(new ConnectError("invalid_state", "Unknown network."), null, null);
  let state: Awaited<ReturnType<typeof consumeState>>;
  try {
    if (!query.state) throw new ConnectError("invalid_state", "The sign-in answer carries no state. Start again.");
    state = await consumeState(ctx, connector.platform, query.state, browserHash);
  } catch (err) {
    if (err instanceof ConnectError) throw new ConnectFailure(err, null, null);
    throw err;
  }
  const { workspaceId, payload } = state;
  const requester = await requesterOf(ctx, workspaceId, payload.link_id);
  try {
    if (state.expired) {
      throw new ConnectError("invalid_state", EXPIRED_STATE);
    }
    // The key that started the flow (or made its link) ended, or the link was deleted: the flow ends with them.
    if (
      !(await issuingKeyLive(ctx, state.apiKeyId)) ||
      !(await issuingPersonLive(ctx, workspaceId, state.createdByUserId, state.createdAt)) ||
      (payload.link_id && !(await linkExists(ctx, payload.link_id)))
    ) {
      throw new ConnectError("revoked", FLOW_ENDED);
    }
    if (query.error) {
      const denied = DENIED.has(query.error);
      throw new ConnectError(
        denied ? "access_denied" : "exchange_failed",
        denied
          ? `${connector.label} access was not granted, so no account was connected.`
          : `${connector.label} answered with an error: ${query.error_description || query.error}.`,
      );
    }
    if (!query.code) throw new ConnectError("exchange_failed", `${connector.label} sent no authorization code.`);
    if (connector.pkce && !payload.code_verifier)
      throw new ConnectError(
        "invalid_state",
        "This sign-in has no PKCE verifier and cannot be completed. Start again.",
      );

    const outcome = await connector.complete(connectContext(ctx), {
      code: query.code,
      redirectUri: callbackUrl(ctx, connector.platform),
      codeVerifier: payload.code_verifier,
      instance: payload.instance,
    });
    if (outcome.grantedScopes !== null) {
      const missing = connector.requiredScopes.filter((s) => !granted(outcome.grantedScopes!, s));
      if (missing.length > 0) {
        throw new ConnectError(
          "missing_scopes",
          `${connector.label} did not grant these permissions: ${missing.join(", ")}. Connect again and allow them.`,
        );
      }
    }
    if (outcome.candidates.length === 0) {
      throw new ConnectError(
        "no_accounts",
        NO_ACCOUNTS[connector.platform] ?? `${connector.label} returned no account.`,
      );
    }
    if (needsPick(connector, outcome.candidates)) {
      const selectionToken = await createSelection(
        ctx,
        workspaceId,
        connector.platform,
        {
          candidates: outcome.candidates,
          redirect_url: payload.redirect_url,
          link_id: payload.link_id,
        },
        state.apiKeyId,
        { userId: state.createdByUserId, since: state.createdAt },
      );
      return { kind: "select", selectionToken };
    }
    const accounts = await upsertAccounts(ctx, workspaceId, outcome.candidates);
    return {
      kind: "connected",
      platform: connector.platform,
      accounts,
      redirectUrl: payload.redirect_url,
      linkId: payload.link_id,
      requester,
    };
  } catch (err) {
    if (err instanceof ConnectError) throw new ConnectFailure(err, payload.redirect_url, payload.link_id, requester);
    throw err;
  }
}
