/** The publish job's own error messages (decisions §7); platform reasons come from the adapters. */
export const PUBLISH_ERRORS = {
  deactivated: "Social account is deactivated.",
  disconnected: "Social account is disconnected.",
  sessionExpired: "Social account session expired — please reconnect.",
  pinterestBoard: "Pinterest board_id is required.",
  timedOut: "Publishing timed out.",
  noAdapter: "Publishing to this platform is not available.",
  exhausted: "Publishing failed after repeated attempts.",
  unexpected: "Unexpected error while publishing.",
  /** The account lost a permission or its access ended (docs/account-health.md); `reason` is the network's. */
  needsReconnect: (reason: string) =>
    `The social account needs reconnecting: ${reason.replace(/\.?$/, ".")} Reconnect it, granting the permissions asked for.`,
} as const;

/** A failure that ends the row now, with a message for `error_message` (or a follow-up's, docs/threads.md). */
export class RowFailure extends Error {
  override name = "RowFailure";
}
