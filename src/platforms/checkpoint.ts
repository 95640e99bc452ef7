import { PlatformError, type PublishCheckpoint, type PublishResult, type PublishState } from "./types";

/**
 * Adapter side of the "no post twice" checkpoint (docs/publishing.md). An adapter saves what it handed the network
 * before each call it cannot take back (a container id, a publish id, an upload session, or just "the create call
 * was sent at T"), and on a retry resumes from what was saved: it asks the network about that handle instead of
 * starting over.
 *
 * The helpers take anything that carries a checkpoint: a post (PublishRequest, also a thread item or a first
 * comment given as a reply) or a comment (CommentRequest), each with its own checkpoint (issue 20).
 */

/** A request with its own "no post twice" checkpoint: PublishRequest or CommentRequest. */
export interface Checkpointed {
  checkpoint?: PublishCheckpoint;
}

/** What an earlier attempt of this row saved (null on a first attempt or outside the publish job). */
export function savedState<T extends PublishState>(req: Checkpointed): T | null {
  return (req.checkpoint?.saved as T | null | undefined) ?? null;
}

/** Saves `state` before an irreversible call; a no-op outside the publish job. */
export async function saveState(req: Checkpointed, state: PublishState): Promise<void> {
  await req.checkpoint?.save(state);
}

/**
 * The row's end when an earlier attempt may have created the post and the network offers no way to tell: the
 * row fails with this message rather than risk a second post. Permanent, so the engine does not retry it.
 */
export function couldNotConfirm(network: string, what: "post" | "reply" | "comment" = "post"): PlatformError {
  return new PlatformError(
    "permanent",
    `Could not confirm whether the ${what} was published: the answer from ${network} was lost. Check ${network} before retrying.`,
  );
}

/** Marker saved right before a create call whose answer is the only handle (X, LinkedIn, Pinterest, Facebook). */
export interface CreateSent extends PublishState {
  create_sent_at: number;
}

/** Posts made at or after this time can be the one a lost create call made (clock skew between us and them). */
export const LOOKUP_SKEW_MS = 5 * 60_000;

/**
 * The create call whose answer is its only handle, made at most once per post: before it, "sent at T" is saved;
 * a retry after that first asks `find` for the post among what the account published since T (minus clock skew),
 * and only creates when it is not there.
 */
export async function createOnce(
  now: number,
  req: Checkpointed,
  find: (sinceMs: number) => Promise<PublishResult | null>,
  create: () => Promise<PublishResult>,
): Promise<PublishResult> {
  const sent = savedState<CreateSent>(req);
  if (sent?.create_sent_at) {
    const found = await find(sent.create_sent_at - LOOKUP_SKEW_MS);
    if (found) return found;
  }
  await saveState(req, { create_sent_at: now } satisfies CreateSent);
  return create();
}

/** Text as networks echo it back, for matching a looked-up post with ours (whitespace and case ignored). */
export const sameText = (a: string | undefined | null, b: string | undefined | null): boolean =>
  (a ?? "").replace(/\s+/g, " ").trim().toLowerCase() === (b ?? "").replace(/\s+/g, " ").trim().toLowerCase();
