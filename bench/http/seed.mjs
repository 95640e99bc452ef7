import { readFileSync } from "node:fs";
import { BENCH_ADMIN, BENCH_VARS } from "../lib/worker.mjs";

// The API worker's bench configuration and seed data (15+ posts × 3 platforms, 2 labels, 2 media), shared by
// run.mjs and profile.mjs.
const ADMIN = BENCH_ADMIN;
export const VARS = { ...BENCH_VARS, MEDIA_URL: "http://127.0.0.1:8790/media" };

// A small valid baseline JPEG (the upload refuses cut-off or too-short image data).
const JPEG = readFileSync(new URL("../../test/media/fixtures/jpeg/baseline.jpg", import.meta.url));

async function json(base, method, p, key, body) {
  const res = await fetch(base + p, {
    method,
    headers: { Authorization: `Bearer ${key}`, ...(body ? { "Content-Type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${p} → ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A workspace with 3 accounts, 2 labels and `posts` posts (each on the 3 accounts with both labels and 2 media). */
export async function seed(base, { posts = 20 } = {}) {
  const boot = await fetch(`${base}/api/admin/workspaces`, {
    method: "POST",
    headers: { Authorization: `Bearer ${ADMIN}`, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "Bench" }),
  }).then((r) => r.json());
  const key = boot.plain_token;
  const accounts = [];
  for (const [platform, ct] of [
    ["x", "x_post"],
    ["linkedin", "linkedin_post"],
    ["facebook", "facebook_post"],
  ]) {
    const acc = await json(base, "POST", "/api/social-accounts", key, {
      platform,
      display_name: `Bench ${platform}`,
      username: "bench",
      credentials: { access_token: "t" },
    });
    accounts.push({ social_account_id: acc.id, content_type: ct });
  }
  const labels = [];
  for (const name of ["one", "two"])
    labels.push((await json(base, "POST", "/api/labels", key, { name, color: "#123456" })).id);
  const postIds = [];
  for (let i = 0; i < posts; i++) {
    const post = await json(base, "POST", "/api/posts", key, {
      content: `Bench post ${i} with a link https://example.com/${i}`,
      platforms: accounts,
      label_ids: labels,
      scheduled_at: new Date(Date.now() + 86_400_000 + i * 60_000).toISOString(),
    });
    for (let m = 0; m < (process.env.BENCH_NO_MEDIA ? 0 : 2); m++) {
      const form = new FormData();
      form.append("media", new Blob([JPEG], { type: "image/jpeg" }), `p${i}-${m}.jpg`);
      const up = await fetch(`${base}/api/posts/${post.id}/media`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}` },
        body: form,
      });
      if (up.status !== 200 && up.status !== 201) throw new Error(`media upload → ${up.status} ${await up.text()}`);
      await up.arrayBuffer();
    }
    postIds.push(post.id);
    if (i % 5 === 4) console.log(`seeded ${i + 1} posts`);
  }
  return {
    key,
    postId: postIds[0],
    // Every post carries this label: the same page under another filter, and a rename that changes every post.
    labelId: labels[0],
    createBody: { content: "Bench create", platforms: accounts, label_ids: labels },
  };
}
