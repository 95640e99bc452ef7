import { waitShared } from "../lib/shared-wait";
import { constraintFailure } from "./errors";
import { callStatements, memberResults } from "./merged-inserts";

/**
 * Group commit: write batches that requests in this isolate send while another one is in flight are sent together,
 * as one D1 batch — one call and one transaction — instead of one call each.
 *
 * D1 has one writer per database and every call costs a round trip to it and a commit; under concurrent writes the
 * batches queue there anyway. Sending the ones that arrived during the previous call as one lets N concurrent creates
 * cost one call and one commit (docs/consistency.md, "Group commit"). A batch sent alone (nothing in flight) goes at
 * once: a lone request waits for nobody.
 *
 * What each request still sees is what its batch alone would have given:
 * - the results of its own statements, and the bookmark of the commit that wrote them;
 * - if the group is refused by a constraint (certain to have rolled back as a whole: src/db/errors.ts), every member
 *   runs again alone, so a member that broke a constraint gets its own error and the others commit;
 * - any other failure (the outcome is unknown: the call may have committed before its answer was lost) is every
 *   member's error, as it would have been alone.
 *
 * The group's call belongs to the request that leads it and is kept alive past that request's end (`waitUntil`), so a
 * leader whose client goes away does not take the others' writes with it. A member never waits without a bound.
 */

/** A D1 session or database: what runs a batch and tells the newest bookmark it saw. */
export interface BatchRunner {
  prepare(sql: string): D1PreparedStatement;
  batch(statements: D1PreparedStatement[]): Promise<D1Result[]>;
  getBookmark?(): string | null;
}

export interface GroupedResult {
  results: D1Result[];
  /** The bookmark of the session that committed the batch (null outside a session). */
  bookmark: string | null;
}

/**
 * Bounds of one group, counted before merging (src/db/merged-inserts.ts): at most 48 statements, so that even if D1
 * counts every statement of a batch against the sending invocation's queries (50 on the Free plan, 1,000 on Paid),
 * a group of creates — 3 to 6 statements each before merging, fewer after — stays inside it.
 */
export const GROUP_LIMITS = { members: 16, statements: 48 } as const;

/** How long a member waits for a group another request runs before giving up with an unknown outcome. */
export const GROUP_WAIT_MS = 30_000;

type Outcome = { kind: "done"; result: GroupedResult } | { kind: "failed"; error: unknown } | { kind: "alone" };

interface Member {
  statements: D1PreparedStatement[];
  /** Set by the call that carried it, whichever request sent it. */
  outcome?: Outcome;
}

interface Flight {
  /**
   * Created and settled in the sending request: the others wait on it. (A promise created by a waiting request and
   * settled by the sending one would cross request contexts, which workerd refuses.)
   */
  done: Promise<void>;
  sentAt: number;
}

export class WriteGroups {
  /** Batches waiting for the call in flight to end, oldest first. */
  readonly #queue: Member[] = [];
  #flight: Flight | null = null;

  constructor(
    private readonly limits: { members: number; statements: number } = GROUP_LIMITS,
    private readonly waitMs = GROUP_WAIT_MS,
  ) {}

  /** Batches waiting to be sent (for tests and diagnostics). */
  get waiting(): number {
    return this.#queue.length;
  }

  /** Runs `statements` as one atomic batch on `runner`, or inside a group another request of this isolate sends. */
  async batch(
    runner: BatchRunner,
    statements: D1PreparedStatement[],
    waitUntil: (p: Promise<unknown>) => void,
  ): Promise<GroupedResult> {
    const member: Member = { statements };
    this.#queue.push(member);
    for (;;) {
      let flight = this.#live();
      if (!flight) {
        // Sent in a call that was given up on (it did not answer within the bound): the outcome is unknown.
        if (!this.#queue.includes(member)) throw unknownOutcome(this.waitMs);
        // Nothing in flight: this request sends what is queued (itself among it, unless more than a group waits).
        flight = this.#send(runner, waitUntil);
      }
      const shared = await waitShared(flight.done, Math.max(0, flight.sentAt + this.waitMs - Date.now()));
      if (member.outcome) return this.#settle(runner, member, member.outcome);
      if (shared) continue; // still queued, or sent in a call still in flight
      // No answer within the bound. Never sent: send it alone. Sent in a call that did not answer: unknown.
      const queued = this.#queue.indexOf(member);
      if (queued < 0) throw unknownOutcome(this.waitMs);
      this.#queue.splice(queued, 1);
      return alone(runner, statements);
    }
  }

  /** The call in flight, unless it is older than the bound (presumed lost with its request: no longer waited on). */
  #live(): Flight | null {
    const flight = this.#flight;
    if (flight && Date.now() - flight.sentAt > this.waitMs) this.#flight = null;
    return this.#flight;
  }

  /** Sends the queued batches (up to the limits) as one call in this request, kept alive past its end. */
  #send(runner: BatchRunner, waitUntil: (p: Promise<unknown>) => void): Flight {
    const members: Member[] = [];
    let statements = 0;
    while (this.#queue.length > 0 && members.length < this.limits.members) {
      const next = this.#queue[0]!;
      if (members.length > 0 && statements + next.statements.length > this.limits.statements) break;
      members.push(this.#queue.shift()!);
      statements += next.statements.length;
    }
    const flight: Flight = { done: Promise.resolve(), sentAt: Date.now() };
    flight.done = this.#run(runner, members).finally(() => {
      if (this.#flight === flight) this.#flight = null;
    });
    this.#flight = flight;
    waitUntil(flight.done);
    return flight;
  }

  /** One D1 call for the whole group; each member's outcome is set on it. */
  async #run(runner: BatchRunner, members: Member[]): Promise<void> {
    try {
      if (members.length === 1) {
        const [only] = members as [Member];
        only.outcome = { kind: "done", result: await alone(runner, only.statements) };
        return;
      }
      const batches = members.map((m) => m.statements);
      const call = callStatements(batches, (sql) => runner.prepare(sql));
      const results = memberResults(batches, call, await runner.batch(call.map((c) => c.statement)));
      const bookmark = runner.getBookmark?.() ?? null;
      members.forEach((m, i) => {
        m.outcome = { kind: "done", result: { results: results[i]!, bookmark } };
      });
    } catch (error) {
      const retry = members.length > 1 && constraintFailure(error) !== null;
      for (const m of members) m.outcome = retry ? { kind: "alone" } : { kind: "failed", error };
    }
  }

  async #settle(runner: BatchRunner, member: Member, outcome: Outcome): Promise<GroupedResult> {
    if (outcome.kind === "done") return outcome.result;
    if (outcome.kind === "failed") throw outcome.error;
    return alone(runner, member.statements);
  }
}

function unknownOutcome(ms: number): Error {
  return new Error(`D1 group commit: no answer within ${ms} ms; the write may or may not have committed`);
}

async function alone(runner: BatchRunner, statements: D1PreparedStatement[]): Promise<GroupedResult> {
  const results = await runner.batch(statements);
  return { results, bookmark: runner.getBookmark?.() ?? null };
}

/** This isolate's groups. */
export const writeGroups = new WriteGroups();

/**
 * `session` as a D1 binding whose `batch` goes through this isolate's write groups; `onBookmark` gets the bookmark
 * of the commit that wrote it (newer than `session`'s own when another request's call carried it).
 */
export function groupedBatches(
  session: D1DatabaseSession,
  waitUntil: (p: Promise<unknown>) => void,
  onBookmark: (bookmark: string | null) => void,
  groups: WriteGroups = writeGroups,
): D1Database {
  return new Proxy(session as unknown as D1Database, {
    get(target, prop, receiver) {
      if (prop === "batch")
        return async (statements: D1PreparedStatement[]) => {
          const { results, bookmark } = await groups.batch(session, statements, waitUntil);
          onBookmark(bookmark);
          return results;
        };
      const value = Reflect.get(target, prop, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
