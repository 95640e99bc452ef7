#!/usr/bin/env node
// What the webhook outbox costs (issue 19): bench/publish/run.mjs twice on fresh state — without webhooks, then with
// one endpoint (a loopback receiver answering 204) subscribed to every post event — and the client-side latency of
// `PUT /api/posts/{post}` with `status=scheduled` in both. Writes the `publish-webhooks` section of bench/RESULTS.md.
//
//   npx node bench/publish/webhooks.mjs   (BENCH_POSTS=1000, BENCH_PUT_SAMPLES=100 by default)
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { machine, median, quantile, today, writeSection } from "../lib/results.mjs";

const runs = [];
for (const webhook of ["0", "1"]) {
  const out = path.join(tmpdir(), `bench-publish-webhook-${webhook}.json`);
  rmSync(out, { force: true });
  const res = spawnSync(process.execPath, [path.join(import.meta.dirname, "run.mjs")], {
    stdio: "inherit",
    env: { ...process.env, BENCH_WEBHOOK: webhook, BENCH_OUT: out },
  });
  if (res.status !== 0) process.exit(res.status ?? 1);
  runs.push(JSON.parse(readFileSync(out, "utf8")));
}
const [off, on] = runs;
const n = (v) => v.toLocaleString("en-US");
const ms = (xs, q) => `${quantile(xs, q).toFixed(1)} ms`;
const pct = (a, b) => `${(((b - a) / a) * 100).toFixed(0)} %`;
writeSection(
  "publish-webhooks",
  `## Webhook outbox cost: PUT /api/posts and ${n(off.posts)} posts × 3 platforms (bench/publish/webhooks.mjs)

\`npx node bench/publish/webhooks.mjs\`: the publishing benchmark (section above) run twice on fresh local state, first
without webhooks, then with one endpoint subscribed to every post event, delivered to a loopback receiver that
answers 204 at once. With the endpoint, every row's final write carries its \`post.platform.*\` outbox row (with the
post's snapshot) and the last row's the post's \`post.*\`; after each queue batch a dispatcher moves them to deliveries
and the \`webhook-deliveries\` queue signs and POSTs them. Before the publish run, ${n(off.put_schedule_ms.length)} drafts
(one X row) are each scheduled with \`PUT /api/posts/{post}\` (\`status=scheduled\`), timed from the client over loopback.

${today()} · ${machine()} · local D1 and Queues (\`wrangler dev\`)

| measure | without webhooks | with one endpoint | difference |
|---|---|---|---|
| PUT status=scheduled, median | ${ms(off.put_schedule_ms, 0.5)} | ${ms(on.put_schedule_ms, 0.5)} | ${(median(on.put_schedule_ms) - median(off.put_schedule_ms)).toFixed(1)} ms |
| PUT status=scheduled, p90 | ${ms(off.put_schedule_ms, 0.9)} | ${ms(on.put_schedule_ms, 0.9)} | |
| cron tick → every post \`published\` | ${(off.all_published_ms / 1000).toFixed(1)} s | ${(on.all_published_ms / 1000).toFixed(1)} s | ${pct(off.all_published_ms, on.all_published_ms)} |
| cron tick → every webhook received | — | ${on.all_webhooks_received_ms === null ? "n/a" : `${(on.all_webhooks_received_ms / 1000).toFixed(1)} s`} | |
| webhooks received (expected ${n(on.posts * 4)}) / repeated webhook-id | — | ${n(on.webhooks_received)} / ${on.webhooks_duplicates} | |
| post statuses | ${JSON.stringify(off.post_status)} | ${JSON.stringify(on.post_status)} | |
| duplicate platform posts | ${off.duplicate_platform_posts} | ${on.duplicate_platform_posts} | |

Without a subscribed endpoint the outbox statements still run (one index probe of \`webhook_endpoints\` each) and each
request or queue batch that built one makes one extra, empty outbox read after answering (\`waitUntil\`): that is the
"without" column's cost, compared with main before webhooks in the publish section's history. One run each on a
shared 2-core machine: differences of a few per cent are within run-to-run noise (see the publish section).`,
);
