import { describe, expect, it } from "vitest";
import { queueKind } from "../src/queues";

describe("queueKind", () => {
  it("routes production and staging queue names (wrangler.jsonc) to their handler", () => {
    expect(
      Object.fromEntries(
        [
          "publish-jobs",
          "publish-jobs-dlq",
          "webhook-deliveries",
          "publish-jobs-staging",
          "publish-jobs-staging-dlq",
          "webhook-deliveries-staging",
          "publish-claims",
          "publish-claims-staging",
        ].map((q) => [q, queueKind(q)]),
      ),
    ).toEqual({
      "publish-jobs": "publish",
      "publish-jobs-dlq": "dead-letter",
      "webhook-deliveries": "webhook",
      "publish-jobs-staging": "publish",
      "publish-jobs-staging-dlq": "dead-letter",
      "webhook-deliveries-staging": "webhook",
      "publish-claims": "claim",
      "publish-claims-staging": "claim",
    });
  });
});
