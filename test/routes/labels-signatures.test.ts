import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { describeAuth } from "../support/auth-cases";
import { createTestWorkspace, UUID, YMDHIS } from "../support/harness";

const SOME_ID = "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a";

describe("labels", () => {
  describeAuth("GET", "/api/labels");
  describeAuth("POST", "/api/labels", { name: "a", color: "#000000" });
  describeAuth("PUT", `/api/labels/${SOME_ID}`, { name: "a", color: "#000000" });
  describeAuth("DELETE", `/api/labels/${SOME_ID}`);

  it("creates, lists latest first, updates and deletes", async () => {
    const ws = await createTestWorkspace();
    const a = await ws.api("POST", "/api/labels", { name: "Launch", color: "#1d4ed8" });
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      id: expect.stringMatching(UUID),
      name: "Launch",
      color: "#1d4ed8",
      created_at: expect.stringMatching(YMDHIS),
      updated_at: expect.stringMatching(YMDHIS),
    });
    const b = await ws.api("POST", "/api/labels", { name: "Promo", color: "#ABCDEF" });
    expect(b.body.color).toBe("#ABCDEF");

    const list = await ws.api("GET", "/api/labels");
    expect(list.status).toBe(200);
    expect(list.body).toEqual([b.body, a.body]);

    const upd = await ws.api("PUT", `/api/labels/${a.body.id}`, { name: "Launch 2", color: "#000000" });
    expect(upd.status).toBe(200);
    expect(upd.body).toEqual({
      ...a.body,
      name: "Launch 2",
      color: "#000000",
      updated_at: expect.stringMatching(YMDHIS),
    });

    const del = await ws.api("DELETE", `/api/labels/${a.body.id}`);
    expect(del.status).toBe(204);
    expect((await ws.api("GET", "/api/labels")).body).toEqual([b.body]);
    expect((await ws.api("DELETE", `/api/labels/${a.body.id}`)).status).toBe(404);
  });

  it("enforces the 255-character and #RRGGBB rules on create and update", async () => {
    const ws = await createTestWorkspace();
    for (const color of ["#12345", "123456", "#12345G", "#1234567", "red"]) {
      const res = await ws.api("POST", "/api/labels", { name: "x", color });
      expect(res.status, color).toBe(422);
      expect(res.body.errors).toEqual({ color: ["The color field must be a hex colour in the form #RRGGBB."] });
    }
    const ok = await ws.api("POST", "/api/labels", { name: "n".repeat(255), color: "#aBc123" });
    expect(ok.status).toBe(201);
    const upd = await ws.api("PUT", `/api/labels/${ok.body.id}`, { name: "" });
    expect(upd.status).toBe(422);
    expect(upd.body).toEqual({
      message: "The name field is required. (and 1 more error)",
      errors: { name: ["The name field is required."], color: ["The color field is required."] },
    });
  });

  it("keeps workspaces apart", async () => {
    const a = await createTestWorkspace();
    const b = await createTestWorkspace();
    const label = await a.api("POST", "/api/labels", { name: "Mine", color: "#000000" });
    expect((await b.api("GET", "/api/labels")).body).toEqual([]);
    const put = await b.api("PUT", `/api/labels/${label.body.id}`, { name: "Yours", color: "#111111" });
    expect(put.status).toBe(404);
    expect(put.body).toEqual({ message: "Not found." });
    expect((await b.api("DELETE", `/api/labels/${label.body.id}`)).status).toBe(404);
    expect((await a.api("GET", "/api/labels")).body).toEqual([label.body]);
  });

  it("detaches a deleted label from posts", async () => {
    const ws = await createTestWorkspace();
    const label = await ws.api("POST", "/api/labels", { name: "L", color: "#000000" });
    const now = Date.now();
    const postId = crypto.randomUUID();
    await env.DB.batch([
      env.DB.prepare(
        "INSERT INTO posts (id, workspace_id, content, status, created_at, updated_at) VALUES (?, ?, 'x', 'draft', ?, ?)",
      ).bind(postId, ws.workspaceId, now, now),
      env.DB.prepare("INSERT INTO post_labels (post_id, label_id) VALUES (?, ?)").bind(postId, label.body.id),
    ]);
    expect((await ws.api("DELETE", `/api/labels/${label.body.id}`)).status).toBe(204);
    const links = await env.DB.prepare("SELECT COUNT(*) AS n FROM post_labels WHERE post_id = ?")
      .bind(postId)
      .first<{ n: number }>();
    expect(links?.n).toBe(0);
  });
});

describe("signatures", () => {
  describeAuth("GET", "/api/signatures");
  describeAuth("POST", "/api/signatures", { name: "a", content: "b" });
  describeAuth("PUT", `/api/signatures/${SOME_ID}`, { name: "a", content: "b" });
  describeAuth("DELETE", `/api/signatures/${SOME_ID}`);

  it("creates, lists latest first, updates and deletes", async () => {
    const ws = await createTestWorkspace();
    const a = await ws.api("POST", "/api/signatures", { name: "Tags", content: "#launch #edge" });
    expect(a.status).toBe(201);
    expect(a.body).toEqual({
      id: expect.stringMatching(UUID),
      name: "Tags",
      content: "#launch #edge",
      created_at: expect.stringMatching(YMDHIS),
      updated_at: expect.stringMatching(YMDHIS),
    });
    const b = await ws.api("POST", "/api/signatures", { name: "CTA", content: "Sign up today" });
    expect((await ws.api("GET", "/api/signatures")).body).toEqual([b.body, a.body]);
    const upd = await ws.api("PUT", `/api/signatures/${a.body.id}`, { name: "Tags 2", content: "#new" });
    expect(upd.status).toBe(200);
    expect(upd.body).toEqual({ ...a.body, name: "Tags 2", content: "#new", updated_at: expect.stringMatching(YMDHIS) });
    expect((await ws.api("DELETE", `/api/signatures/${a.body.id}`)).status).toBe(204);
    expect((await ws.api("GET", "/api/signatures")).body).toEqual([b.body]);
  });

  it("validates name and content", async () => {
    const ws = await createTestWorkspace();
    const res = await ws.api("POST", "/api/signatures", { name: "n".repeat(256), content: 5 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: "The name field must not be greater than 255 characters. (and 1 more error)",
      errors: {
        name: ["The name field must not be greater than 255 characters."],
        content: ["The content field must be a string."],
      },
    });
  });

  it("keeps workspaces apart", async () => {
    const a = await createTestWorkspace();
    const b = await createTestWorkspace();
    const sig = await a.api("POST", "/api/signatures", { name: "S", content: "c" });
    expect((await b.api("PUT", `/api/signatures/${sig.body.id}`, { name: "x", content: "y" })).status).toBe(404);
    expect((await b.api("DELETE", `/api/signatures/${sig.body.id}`)).status).toBe(404);
    expect((await b.api("GET", "/api/signatures")).body).toEqual([]);
  });
});
