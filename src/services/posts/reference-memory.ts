import type { Fingerprints, ReferenceIds, References } from "./references";

/**
 * What this isolate last read of a workspace's accounts, labels and media, so that a create can skip its read round
 * trip (issue 28: far from the primary every sequential D1 call is a cross-region round trip).
 *
 * A remembered row is only ever a guess: the create that uses it writes in one batch whose post INSERT carries a guard
 * (`referencesUnchanged`, src/services/posts/references.ts) comparing each row's fingerprint — SQLite's own
 * `json_array` of the row's columns, computed when the row was read — with the row as it is now, inside the same
 * transaction. If any differs (renamed, disconnected, deleted, moved), the batch fails as a whole and the create runs
 * again the careful way: read, check, write (docs/consistency.md, "Creates from remembered rows"). So nothing here
 * needs invalidating for correctness; forgetting only saves the next create a failed attempt.
 *
 * Bounded: at most `MAX_ROWS` rows in all (the least recently used workspaces go first; a row with its fingerprint is
 * about 1–2 KB, so ≈ 10 MB of the isolate's 128 MB at most), `MAX_ROWS_PER_KIND` rows of each kind per workspace, and
 * rows older than `TTL_MS` are not used.
 */
export const MAX_ROWS = 5000;
export const MAX_ROWS_PER_KIND = 500;
export const TTL_MS = 5 * 60 * 1000;

type Kind = keyof Fingerprints;
const KINDS: readonly Kind[] = ["accounts", "labels", "media"];

interface Remembered<Row> {
  row: Row;
  fingerprint: string;
  at: number;
}

type WorkspaceMemory = {
  [K in Kind]: Map<string, Remembered<References[K] extends Map<string, infer Row> ? Row : never>>;
};

/** Workspaces in least-recently-used order (a Map keeps insertion order; a use moves the workspace to the end). */
const memory = new Map<string, WorkspaceMemory>();
let rowCount = 0;

const sizeOf = (entry: WorkspaceMemory) => entry.accounts.size + entry.labels.size + entry.media.size;

/** Keeps every row of `refs` that carries a fingerprint (rows read by `referenceReads`). */
export function rememberReferences(workspaceId: string, refs: References, now: number): void {
  if (!refs.fingerprints) return;
  let entry = memory.get(workspaceId);
  if (entry) memory.delete(workspaceId);
  else entry = { accounts: new Map(), labels: new Map(), media: new Map() };
  memory.set(workspaceId, entry);
  rowCount -= sizeOf(entry);
  for (const kind of KINDS) {
    const rows = entry[kind] as Map<string, Remembered<unknown>>;
    for (const [id, row] of refs[kind] as Map<string, unknown>) {
      const fingerprint = refs.fingerprints[kind].get(id);
      if (fingerprint === undefined) continue;
      rows.delete(id);
      rows.set(id, { row, fingerprint, at: now });
    }
    while (rows.size > MAX_ROWS_PER_KIND) rows.delete(rows.keys().next().value as string);
  }
  rowCount += sizeOf(entry);
  // Least recently used workspaces out first; never the one just remembered.
  for (const [id, other] of memory) {
    if (rowCount <= MAX_ROWS || id === workspaceId) break;
    memory.delete(id);
    rowCount -= sizeOf(other);
  }
}

/** How many rows are remembered in all (tests). */
export function rememberedRowCount(): number {
  return rowCount;
}

/**
 * Every row `ids` names, as remembered (with fingerprints), or null when any of them is not remembered or is older
 * than `TTL_MS` — then the caller reads. Holes (`undefined`) are skipped, as the reads skip them.
 */
export function recallReferences(workspaceId: string, ids: ReferenceIds, now: number): References | null {
  const entry = memory.get(workspaceId);
  if (!entry) return null;
  memory.delete(workspaceId);
  memory.set(workspaceId, entry);
  const refs: References = {
    accounts: new Map(),
    labels: new Map(),
    media: new Map(),
    fingerprints: { accounts: new Map(), labels: new Map(), media: new Map() },
  };
  const wanted: Record<Kind, (string | undefined)[]> = {
    accounts: ids.accountIds,
    labels: ids.labelIds,
    media: ids.mediaIds,
  };
  for (const kind of KINDS) {
    const rows = entry[kind] as Map<string, Remembered<unknown>>;
    for (const id of wanted[kind]) {
      if (id === undefined) continue;
      const hit = rows.get(id);
      if (!hit || hit.at <= now - TTL_MS) return null;
      (refs[kind] as Map<string, unknown>).set(id, hit.row);
      refs.fingerprints![kind].set(id, hit.fingerprint);
    }
  }
  return refs;
}

/** Drops what this isolate remembers of a workspace (after a guarded write found a row changed). */
export function forgetReferences(workspaceId: string): void {
  const entry = memory.get(workspaceId);
  if (!entry) return;
  memory.delete(workspaceId);
  rowCount -= sizeOf(entry);
}
