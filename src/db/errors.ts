/**
 * The SQLite constraint a failed D1 statement broke — `NOT NULL constraint failed: posts.workspace_id`,
 * `UNIQUE constraint failed: …` — or null for any other failure. D1 reports a statement's error in the message
 * (`D1_ERROR: … : SQLITE_CONSTRAINT`), and drizzle wraps it as the `cause` of its own error, so the chain is searched.
 * A constraint failure is certain to have rolled the whole batch back; a network or overload error is not certain
 * to have (the write may have committed before the answer was lost), so callers retry only the former.
 */
export function constraintFailure(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const message = (e as { message?: unknown }).message;
    if (typeof message !== "string") continue;
    const found =
      /\b(?:NOT NULL|UNIQUE|PRIMARY KEY|CHECK|FOREIGN KEY) constraint failed(?::\s*[\w."]+(?:,\s*[\w."]+)*)?/.exec(
        message,
      );
    if (found) return found[0];
  }
  return null;
}
