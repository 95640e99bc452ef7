import { currentFake, fakeOrigin } from "../fake-fetch";
import type { FakeNetwork } from "./fake-oauth";

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
