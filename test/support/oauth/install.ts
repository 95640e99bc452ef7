import { env } from "cloudflare:workers";
import { currentFake, fakeOrigin } from "../fake-fetch";
import { FakeX } from "../fakes/x";
import { type FakeNetwork, fakeXOAuth } from "./fake-oauth";

/**
 * Puts a fake OAuth network in front of the publishing fakes: its handlers answer the OAuth and profile paths;
 * everything else on the same origin goes to the fake that served the origin before (the publishing fake).
 */
export function installOAuthNetwork(net: FakeNetwork): () => void {
  const restores = Object.entries(net.routes).map(([origin, handler]) => {
    const previous = currentFake(origin);
    const remove = fakeOrigin(origin, async (req) => {
      const mine = await handler(req.clone());
      if (mine) return mine;
      if (previous) return previous(req);
      return new Response("Not Found", { status: 404 });
    });
    return () => (previous ? fakeOrigin(origin, previous) : remove());
  });
  return () => {
    for (const restore of restores) restore();
  };
}

/**
 * X's OAuth network and its publishing fake, installed together: the connect returns `token`, which the publishing
 * fake accepts. Each uninstall goes onto `cleanups` (the file's afterEach runs them).
 */
export function installConnectedX(
  cleanups: (() => void)[],
  token = "x-connected-token",
): { net: FakeNetwork; x: FakeX } {
  const x = new FakeX();
  cleanups.push(x.install());
  x.accessTokens.add(token);
  const net = fakeXOAuth({ authOrigin: "https://x-auth.fake", apiOrigin: "https://x.fake" });
  net.oauth.nextAccessToken = () => token;
  cleanups.push(installOAuthNetwork(net));
  return { net, x };
}

/** How many social accounts a workspace holds (connected or not). */
export async function countSocialAccounts(workspaceId: string): Promise<number | undefined> {
  return (
    await env.DB.prepare("SELECT COUNT(*) AS n FROM social_accounts WHERE workspace_id = ?")
      .bind(workspaceId)
      .first<{ n: number }>()
  )?.n;
}
