import type { Context } from "hono";
import type { SocialAccountResource } from "../presenters/resources";
import type { CallbackResult, ConnectFailure } from "../services/connect/complete-connect";
import type { AppEnv } from "../types";
import { PAGE_HEADERS, type Requester, resultPage } from "./pages";

/** How a finished connect answers the browser: back to the caller's redirect URL, or a page of ours. */

export function withParams(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

export const html = (c: Context<AppEnv>, body: string, status: 200 | 400 | 403 | 404 | 409 | 410 | 422 = 200) =>
  c.body(body, status, PAGE_HEADERS);

export function seeOther(url: string): Response {
  return new Response(null, {
    status: 303,
    headers: { Location: url, "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" },
  });
}

export function connectedResponse(
  c: Context<AppEnv>,
  platform: string,
  accounts: SocialAccountResource[],
  redirectUrl: string | null,
  requester: Requester | null,
): Response {
  if (redirectUrl) {
    return seeOther(withParams(redirectUrl, { connected: platform, accounts: accounts.map((a) => a.id).join(",") }));
  }
  return html(
    c,
    resultPage({
      ok: true,
      title: "Account connected",
      text: `${accounts.length === 1 ? "This account is" : `These ${accounts.length} accounts are`} now connected.`,
      accounts: accounts.map((a) => `${a.display_name} (${a.platform})`),
      requester,
    }),
  );
}

export function callbackResponse(c: Context<AppEnv>, result: CallbackResult): Response {
  if (result.kind === "select") return seeOther(`/connect/select/${result.selectionToken}`);
  return connectedResponse(c, result.platform, result.accounts, result.redirectUrl, result.requester);
}

export function failureResponse(c: Context<AppEnv>, failure: ConnectFailure): Response {
  if (failure.redirectUrl) {
    return seeOther(
      withParams(failure.redirectUrl, { error: failure.error.code, error_description: failure.error.message }),
    );
  }
  const status = failure.error.code === "revoked" || failure.error.code === "browser_mismatch" ? 403 : 400;
  return html(
    c,
    resultPage({
      ok: false,
      title: "The account was not connected",
      text: failure.error.message,
      requester: failure.requester,
    }),
    status,
  );
}
