import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createTestWorkspace, deliver, readRow, seedAccount, seedPost } from "../publishing/support";
import { fakeLinkedIn, linkedInError } from "../support/fakes/linkedin";
import { call } from "../support/harness";

const admin = { Authorization: `Bearer ${env.ADMIN_TOKEN}` };
const okCheck = { status: "ok", latency_ms: expect.any(Number) };
/** Every check of `deep=1` passing; a test overrides the ones it expects to fail. */
const allOkChecks = {
  d1: okCheck,
  r2: okCheck,
  kv: okCheck,
  publish_queue: okCheck,
  webhook_queue: okCheck,
  durable_object: okCheck,
  linkedin_version: okCheck,
};

/** The probes the deep check sends, recorded instead of handed to the local queues' consumers. */
function recordProbes() {
  const sent: { queue: string; body: unknown }[] = [];
  for (const [queue, binding] of [
    ["publish", env.PUBLISH_QUEUE],
    ["webhook", env.WEBHOOK_QUEUE],
  ] as const) {
    vi.spyOn(binding, "send").mockImplementation(async (body) => {
      sent.push({ queue, body });
      return {} as QueueSendResponse;
    });
  }
  return sent;
}

afterEach(() => vi.restoreAllMocks());

describe("GET /api/health", () => {
  it("answers at once without deep, and needs no token", async () => {
    const res = await call("GET", "/api/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("deep=1 needs the admin token", async () => {
    const sent = recordProbes();
    for (const headers of [{}, { Authorization: "Bearer nope" }] as Record<string, string>[]) {
      const res = await call("GET", "/api/health?deep=1", { headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: "Unauthenticated." });
    }
    expect(sent).toEqual([]);
  });

  it("deep=1 checks D1, R2, KV, both queue producers, the Durable Object and the LinkedIn version, each with its latency", async () => {
    const sent = recordProbes();
    const res = await call("GET", "/api/health?deep=1", { headers: admin });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: "ok",
      checks: allOkChecks,
    });
    expect(sent).toEqual([
      { queue: "publish", body: { health_probe: expect.any(String) } },
      { queue: "webhook", body: { health_probe: expect.any(String) } },
    ]);
  });

  it("deep=1 answers 503 naming the dependency that failed", async () => {
    recordProbes();
    vi.spyOn(env.METRICS_CACHE, "get").mockRejectedValue(new Error("KV is unavailable"));
    const res = await call("GET", "/api/health?deep=1", { headers: admin });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: "degraded",
      checks: {
        ...allOkChecks,
        kv: { status: "error", latency_ms: expect.any(Number), error: "KV is unavailable" },
        // The LinkedIn version check reads KV too.
        linkedin_version: { status: "error", latency_ms: expect.any(Number), error: "KV is unavailable" },
      },
    });
  });

  it("deep=1 names a LinkedIn version LinkedIn no longer serves (426 on a publish) until the setting moves", async () => {
    const version = env.LINKEDIN_API_VERSION;
    const li = fakeLinkedIn();
    try {
      // A sunset version: 426 "NONEXISTENT_VERSION", as LinkedIn answers (test/support/fakes/linkedin.ts).
      li.failNext({ path: "/rest/posts" }, () =>
        linkedInError(426, "NONEXISTENT_VERSION", `Requested version ${version} is not active`),
      );
      const ws = await createTestWorkspace();
      const accountId = await seedAccount(ws, {
        platform: "linkedin",
        platformUserId: "li-member-1",
        credentials: { access_token: "access-token" },
      });
      const post = await seedPost(ws, {
        content: "After the sunset",
        rows: [{ accountId, platform: "linkedin", contentType: "linkedin_post" }],
      });
      await deliver(post.messages);
      const message = `LinkedIn API version ${version} is no longer served; set LINKEDIN_API_VERSION to a current version (docs/configuration.md "Moving the LinkedIn version"). LinkedIn: Requested version ${version} is not active`;
      expect(await readRow(post.rowIds[0]!)).toMatchObject({ status: "failed", error_message: message });
    } finally {
      li.uninstall();
    }
    recordProbes();
    const res = await call("GET", "/api/health?deep=1", { headers: admin });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: "degraded",
      checks: {
        ...allOkChecks,
        linkedin_version: {
          status: "error",
          latency_ms: expect.any(Number),
          error: expect.stringMatching(
            new RegExp(
              `^LinkedIn API version ${version} is no longer served; set LINKEDIN_API_VERSION to a current version \\(docs/configuration\\.md "Moving the LinkedIn version"\\)\\. LinkedIn answered 426 at \\d{4}-\\d\\d-\\d\\dT`,
            ),
          ),
        },
      },
    });
    // A note about another version (the setting has moved on since): the check is ok again.
    await env.METRICS_CACHE.put(
      "health:linkedin-version-sunset",
      JSON.stringify({ version: "202501", at: Date.now() }),
    );
    const moved = await call("GET", "/api/health?deep=1", { headers: admin });
    expect(moved.status).toBe(200);
    expect((moved.body as { checks: Record<string, unknown> }).checks.linkedin_version).toEqual(okCheck);
  });

  it("every consumer acks a probe unread", async () => {
    for (const queue of ["publish-jobs", "publish-jobs-dlq", "webhook-deliveries"]) {
      const result = await deliver([{ health_probe: "req-1" }], { queue });
      expect(result).toEqual({
        outcome: "ok",
        ackAll: false,
        retryBatch: { retry: false },
        explicitAcks: ["msg-0"],
        retryMessages: [],
      });
    }
    const stored = await env.DB.prepare("SELECT COUNT(*) AS n FROM dead_letters").first<{ n: number }>();
    expect(stored!.n).toBe(0);
  });
});
