import { describe, expect, it } from "vitest";
import { createTestWorkspace } from "../support/harness";
import { seedAccounts, seedLabels } from "./bounds-fixtures";
import { connectAccount, createLabel, HOUR, isoIn } from "./posts-fixtures";

/**
 * One round of validation (issue 15): a body with shape errors and errors only the database can tell gets one 422
 * that lists both, on POST and PUT alike; the message stays "the first error (and N more errors)".
 */

const UNKNOWN = "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a";
const summary = (errors: Record<string, string[]>) => {
  const all = Object.values(errors).flat();
  const more = all.length - 1;
  return more ? `${all[0]} (and ${more} more error${more === 1 ? "" : "s"})` : all[0];
};

async function twoWorkspaces() {
  const ws = await createTestWorkspace();
  const other = await createTestWorkspace();
  const x = await connectAccount(ws, "x");
  const foreignAccount = await connectAccount(other, "threads");
  const foreignLabel = await createLabel(other, "Theirs");
  return { ws, x, foreignAccount, foreignLabel };
}

describe("POST /api/posts: one round", () => {
  it("lists shape errors and reference errors together", async () => {
    const { ws, x, foreignAccount, foreignLabel } = await twoWorkspaces();
    const res = await ws.api("POST", "/api/posts", {
      platforms: [
        { social_account_id: UNKNOWN, content_type: "x_post" },
        { social_account_id: "not-a-uuid", content_type: "x_post" },
        { social_account_id: foreignAccount.id, content_type: "threads_post" },
        { social_account_id: x.id, content_type: "linkedin_post" },
        { social_account_id: x.id, content_type: "nope" },
      ],
      content: 5,
      label_ids: [foreignLabel.id, "bad"],
      media: [{ id: UNKNOWN }],
      scheduled_at: isoIn(-HOUR),
    });
    const errors = {
      "platforms.1.social_account_id": ["The platforms.1.social account id field must be a valid UUID."],
      "platforms.4.content_type": ["The selected platforms.4.content type is invalid."],
      content: ["The content field must be a string."],
      "label_ids.1": ["The label ids.1 field must be a valid UUID."],
      scheduled_at: ["The scheduled at field must be a date after now."],
      "platforms.0.social_account_id": ["The selected platforms.0.social account id is invalid."],
      "platforms.2.social_account_id": ["The selected platforms.2.social account id is invalid."],
      "platforms.3.content_type": ["The platforms.3.content type linkedin_post is not available for x accounts."],
      "label_ids.0": ["The selected label ids.0 is invalid."],
      "media.0.id": ["The selected media.0.id is invalid."],
    };
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: summary(errors), errors });
  });

  it("a list past its bound is reported on its own, and the other references are still checked", async () => {
    const ws = await createTestWorkspace();
    const other = await createTestWorkspace();
    const labels = await seedLabels(other, 51); // not this workspace's: they would each be reported if checked
    const res = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: UNKNOWN, content_type: "x_post" }],
      label_ids: labels.map((l) => l.id),
    });
    const errors = {
      label_ids: ["The label ids field must not have more than 50 items."],
      "platforms.0.social_account_id": ["The selected platforms.0.social account id is invalid."],
    };
    expect(res.body).toEqual({ message: summary(errors), errors });
  });
});

describe("PUT /api/posts/{post}: one round", () => {
  it("lists shape errors, reference errors and the schedule rules together", async () => {
    const { ws, x, foreignLabel } = await twoWorkspaces();
    const created = await ws.api("POST", "/api/posts", {
      platforms: [{ social_account_id: x.id, content_type: "x_post" }],
      content: "fits",
    });
    expect(created.status).toBe(201);
    const [mine] = await seedAccounts(ws, 1); // a linkedin account
    const res = await ws.api("PUT", `/api/posts/${created.body.id}`, {
      status: "scheduled",
      scheduled_at: isoIn(-HOUR),
      content: 3,
      label_ids: [foreignLabel.id],
      platforms: [
        { social_account_id: UNKNOWN, content_type: "x_post" },
        { enabled: "yes" },
        { social_account_id: mine!.id, content_type: "x_post" },
      ],
    });
    const errors = {
      content: ["The content field must be a string."],
      "platforms.1.enabled": ["The platforms.1.enabled field must be true or false."],
      scheduled_at: ["The scheduled at field must be a date after now."],
      "platforms.0.social_account_id": ["The selected platforms.0.social account id is invalid."],
      "platforms.2.content_type": ["The platforms.2.content type x_post is not available for linkedin accounts."],
      "label_ids.0": ["The selected label ids.0 is invalid."],
    };
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: summary(errors), errors });
    expect((await ws.api("GET", `/api/posts/${created.body.id}`)).body).toEqual(created.body);
  });

  it("a post that is not there: shape errors only; a well-formed body: 404", async () => {
    const ws = await createTestWorkspace();
    const shape = await ws.api("PUT", `/api/posts/${UNKNOWN}`, { content: 3, label_ids: [UNKNOWN] });
    expect(shape.body).toEqual({
      message: "The content field must be a string.",
      errors: { content: ["The content field must be a string."] },
    });
    const missing = await ws.api("PUT", `/api/posts/${UNKNOWN}`, { content: "x" });
    expect(missing.status).toBe(404);
  });
});
