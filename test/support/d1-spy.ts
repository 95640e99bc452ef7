import { env } from "cloudflare:workers";
import { vi } from "vitest";

type Prepare = (query: string) => D1PreparedStatement;

/**
 * Spies on every statement prepared on the DB binding, whether straight on it (queue, cron, the tests' own
 * fixtures) or in the D1 session each HTTP request runs in (src/db/session.ts): `impl` gets the query and the real
 * `prepare` to call. Undo with `vi.restoreAllMocks()`.
 */
export function spyOnPrepare(impl: (query: string, prepare: Prepare) => D1PreparedStatement): void {
  const prepare = env.DB.prepare.bind(env.DB);
  vi.spyOn(env.DB, "prepare").mockImplementation((q) => impl(q, prepare));
  const withSession = env.DB.withSession.bind(env.DB);
  vi.spyOn(env.DB, "withSession").mockImplementation((constraint) => {
    const session = withSession(constraint);
    const sessionPrepare: Prepare = session.prepare.bind(session);
    return new Proxy(session, {
      get(target, prop) {
        if (prop === "prepare") return (q: string) => impl(q, sessionPrepare);
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  });
}
