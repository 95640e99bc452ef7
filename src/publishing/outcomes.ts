import { errorFields, log } from "../lib/logger";

/** What became of one publish attempt of one post-platform row. */
export type PublishOutcomeKind = "published" | "failed" | "retry" | "dead_lettered";

/**
 * Counts a publish outcome per network in Workers Analytics Engine (`PUBLISH_EVENTS`, dataset `publish_outcomes`):
 * index = network, blob1 = network, blob2 = outcome, blob3 = workspace id, double1 = 1. The query to run is in
 * docs/runbook.md. `writeDataPoint` does not wait for the write and never fails the publish
 * (https://developers.cloudflare.com/analytics/analytics-engine/get-started/).
 */
export function recordPublishOutcome(
  env: Cloudflare.Env,
  platform: string,
  outcome: PublishOutcomeKind,
  workspaceId = "",
): void {
  try {
    env.PUBLISH_EVENTS?.writeDataPoint({ indexes: [platform], blobs: [platform, outcome, workspaceId], doubles: [1] });
  } catch (err) {
    log("warn", "publish_outcome_not_recorded", { platform, outcome, ...errorFields(err) });
  }
}
