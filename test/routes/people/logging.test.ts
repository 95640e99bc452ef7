import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import worker from "../../../src/index";
import { setLogLevel } from "../../../src/lib/logger";
import { BASE } from "../../support/harness";
import { SESSION_COOKIE, signedIn, workspaceWithOwner } from "./support";

afterEach(() => {
  vi.restoreAllMocks();
  setLogLevel("silent");
});

describe("request logs of a signed-in person (issue 27)", () => {
  it("name the person (user_id) and the workspace, never the cookie", async () => {
    const ws = await workspaceWithOwner();
    const person = await signedIn(ws.email);
    const lines: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void lines.push(line));
    const ctx = createExecutionContext();
    const res = await worker.fetch(
      new Request(`${BASE}/api/workspace`, { headers: { Cookie: `${SESSION_COOKIE}=${person.cookie}` } }),
      { ...env, LOG_LEVEL: "info" } as unknown as Cloudflare.Env,
      ctx,
    );
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    const request = lines.map((l) => JSON.parse(l)).find((l) => l.event === "request");
    expect(request).toEqual(
      expect.objectContaining({
        route: "/api/workspace",
        status: 200,
        workspace_id: ws.workspaceId,
        user_id: ws.owner.id,
      }),
    );
    expect(lines.join("\n")).not.toContain(person.cookie.split(".")[0]);
  });
});
