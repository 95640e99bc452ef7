import { env } from "cloudflare:workers";
import { vi } from "vitest";

type Prepare = (query: string) => D1PreparedStatement;

/**
 * Spies on `env.DB.withSession`: each D1 session a request opens answers `method` with what `replace(session,
 * constraint)` gives (null: the session as it is); everything else is the session's own. Undo with
 * `vi.restoreAllMocks()`.
 */
function overrideSessions<M extends "prepare" | "batch">(
  method: M,
  replace: (session: D1DatabaseSession, constraint?: string) => D1DatabaseSession[M] | null,
): void {
  const withSession = env.DB.withSession.bind(env.DB);
  vi.spyOn(env.DB, "withSession").mockImplementation((constraint?: string) => {
    const session = withSession(constraint);
    const replacement = replace(session, constraint);
    if (!replacement) return session;
    return new Proxy(session, {
      get(target, prop) {
        if (prop === method) return replacement;
        const value = Reflect.get(target, prop);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  });
}

/**
 * Spies on every statement prepared on the DB binding, whether straight on it (queue, cron, the tests' own
 * fixtures) or in the D1 session each HTTP request runs in (src/db/session.ts): `impl` gets the query and the real
 * `prepare` to call. Undo with `vi.restoreAllMocks()`.
 */
export function spyOnPrepare(impl: (query: string, prepare: Prepare) => D1PreparedStatement): void {
  const prepare = env.DB.prepare.bind(env.DB);
  vi.spyOn(env.DB, "prepare").mockImplementation((q) => impl(q, prepare));
  overrideSessions("prepare", (session) => {
    const sessionPrepare: Prepare = session.prepare.bind(session);
    return (q: string) => impl(q, sessionPrepare);
  });
}

type Batch = (statements: D1PreparedStatement[]) => Promise<D1Result[]>;

/**
 * Spies on every batch sent through a D1 session the requests open (src/db/session.ts): `impl` gets the statements
 * and the session's real `batch` to call. Undo with `vi.restoreAllMocks()`.
 */
export function spyOnSessionBatch(
  impl: (statements: D1PreparedStatement[], batch: Batch) => Promise<D1Result[]>,
): void {
  overrideSessions(
    "batch",
    (session) =>
      ((statements: D1PreparedStatement[]) => impl(statements, (s) => session.batch(s))) as D1DatabaseSession["batch"],
  );
}

/** D1 sessions whose reads of `table` answer nothing, as a read replica that has not caught up with the primary. */
export function lagOnReplicas(table: string) {
  overrideSessions("prepare", (session) => (sql: string) => {
    const stmt = session.prepare(sql);
    if (!new RegExp(`from "${table}"`, "i").test(sql)) return stmt;
    const empty = {
      raw: async () => [],
      all: async () => ({ results: [], success: true, meta: {} }),
      first: async () => null,
    };
    const lagging = new Proxy(stmt, {
      get: (t, p) => (p in empty ? empty[p as keyof typeof empty] : Reflect.get(t, p)),
    });
    return new Proxy(stmt, { get: (t, p) => (p === "bind" ? () => lagging : Reflect.get(t, p)) });
  });
}

/**
 * D1 sessions that read `table` as it is now, while the primary moves on: a read replica that has not seen the
 * writes made after this call (a sign-out, a removal). The current rows are copied to `stale_<table>` and every
 * SELECT prepared in a read's D1 session reads the copy; writes' sessions and the database itself (the primary) do
 * not. Returns a cleanup that drops the copy (the caller's `vi.restoreAllMocks()` ends the redirection).
 */
export async function staleOnReplicas(table: string): Promise<() => Promise<void>> {
  const copy = `stale_${table}`;
  await env.DB.batch([
    env.DB.prepare(`DROP TABLE IF EXISTS "${copy}"`),
    env.DB.prepare(`CREATE TABLE "${copy}" AS SELECT * FROM "${table}"`),
  ]);
  // A write's session starts at the primary (src/db/session.ts): only the sessions of reads see the copy.
  overrideSessions("prepare", (session, constraint) =>
    constraint === "first-primary"
      ? null
      : (sql: string) => session.prepare(/^\s*select\b/i.test(sql) ? sql.replaceAll(`"${table}"`, `"${copy}"`) : sql),
  );
  return async () => {
    await env.DB.prepare(`DROP TABLE IF EXISTS "${copy}"`).run();
  };
}
