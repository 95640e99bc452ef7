import { describe, expect, it } from "vitest";
import { BASE, createTestWorkspace, type TestWorkspace } from "../support/harness";
import { connectAccount, createLabel } from "./posts-fixtures";

/**
 * `GET /api/posts?social_account_id=…&scheduled_from=…&scheduled_to=…` (issue 27: the dashboard's calendar asks for
 * one month or week, its lists for one account): the filters combine with `status` and `label_id`, and the page
 * links keep them.
 */
const url = (query: string) => `${BASE}/api/posts?${query}`;

async function createPost(ws: TestWorkspace, accountIds: string[], scheduledAt: string, content: string) {
  const res = await ws.api("POST", "/api/posts", {
    content,
    scheduled_at: scheduledAt,
    platforms: accountIds.map((id) => ({ social_account_id: id, content_type: "x_post" })),
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

const ids = (res: { body: { data: { id: string }[] } }) => res.body.data.map((p) => p.id);

describe("GET /api/posts filters", () => {
  it("social_account_id: only posts with a row for that account", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const other = await connectAccount(ws, "x", { username: "other_user", platform_user_id: "other" });
    const onlyX = await createPost(ws, [x.id], "2031-01-03T09:00:00Z", "x only");
    const onlyOther = await createPost(ws, [other.id], "2031-01-02T09:00:00Z", "other only");
    const both = await createPost(ws, [x.id, other.id], "2031-01-01T09:00:00Z", "both");

    const res = await ws.api("GET", `/api/posts?social_account_id=${x.id}`);
    expect({ status: res.status, ids: ids(res), total: res.body.meta.total, first: res.body.links.first }).toEqual({
      status: 200,
      ids: [onlyX, both],
      total: 2,
      first: url(`social_account_id=${x.id}&page=1`),
    });
    const theOther = await ws.api("GET", `/api/posts?social_account_id=${other.id}`);
    expect(ids(theOther)).toEqual([onlyOther, both]);
    // An account of no post (or of another workspace) finds nothing.
    const none = await ws.api("GET", `/api/posts?social_account_id=${crypto.randomUUID()}`);
    expect({ ids: ids(none), total: none.body.meta.total }).toEqual({ ids: [], total: 0 });
  });

  it("scheduled_from (inclusive) and scheduled_to (exclusive): a calendar month, in any accepted format", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const firstMoment = await createPost(ws, [x.id], "2031-01-01T00:00:00Z", "first moment of January");
    const lastSecond = await createPost(ws, [x.id], "2031-01-31 23:59:59", "last second of January");
    await createPost(ws, [x.id], "2031-02-01T00:00:00Z", "February");
    await createPost(ws, [x.id], "2030-12-31T23:59:59Z", "December");

    const month = await ws.api("GET", "/api/posts?scheduled_from=2031-01-01&scheduled_to=2031-02-01");
    expect({ status: month.status, ids: ids(month), total: month.body.meta.total }).toEqual({
      status: 200,
      ids: [lastSecond, firstMoment],
      total: 2,
    });
    expect(month.body.links.first).toBe(url("scheduled_from=2031-01-01&scheduled_to=2031-02-01&page=1"));
    // An offset is honoured: 01:00+01:00 is midnight UTC.
    const zoned = await ws.api(
      "GET",
      `/api/posts?scheduled_from=${encodeURIComponent("2031-01-01T01:00:00+01:00")}&scheduled_to=${encodeURIComponent("2031-01-01T00:00:01Z")}`,
    );
    expect(ids(zoned)).toEqual([firstMoment]);
    // One bound alone.
    const after = await ws.api("GET", "/api/posts?scheduled_from=2031-01-31T23:59:59Z");
    expect(after.body.meta.total).toBe(2);
    const before = await ws.api("GET", "/api/posts?scheduled_to=2031-01-01T00:00:00Z");
    expect(before.body.meta.total).toBe(1);
  });

  it("combines with status and label_id; the links carry every filter", async () => {
    const ws = await createTestWorkspace();
    const x = await connectAccount(ws, "x");
    const label = await createLabel(ws, "Pick");
    const picked = await createPost(ws, [x.id], "2031-03-02T09:00:00Z", "picked");
    await ws.api("PUT", `/api/posts/${picked}`, { label_ids: [label.id] });
    await createPost(ws, [x.id], "2031-03-03T09:00:00Z", "not picked");
    const q = `status=draft&label_id=${label.id}&social_account_id=${x.id}&scheduled_from=2031-03-01&scheduled_to=2031-04-01`;
    const res = await ws.api("GET", `/api/posts?${q}`);
    expect({
      status: res.status,
      ids: ids(res),
      first: res.body.links.first,
      page1: res.body.meta.links[1].url,
    }).toEqual({
      status: 200,
      ids: [picked],
      first: url(`${q}&page=1`),
      page1: url(`${q}&page=1`),
    });
  });

  it("refuses what is not a date or an id (422, every field)", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api(
      "GET",
      "/api/posts?social_account_id=nope&scheduled_from=tomorrow&scheduled_to=2031-02-31",
    );
    expect({ status: res.status, body: res.body }).toEqual({
      status: 422,
      body: {
        message: "The social account id field must be a valid UUID. (and 2 more errors)",
        errors: {
          social_account_id: ["The social account id field must be a valid UUID."],
          scheduled_from: ["The scheduled from field must be a valid date."],
          scheduled_to: ["The scheduled to field must be a valid date."],
        },
      },
    });
  });
});
