// `npm run deploy` against a fake wrangler (test/e2e/fixtures/fake-wrangler.mjs) standing in for an empty account:
// the first run creates every queue, generates the random secrets, deploys (which provisions D1), migrates the new
// database and deploys again with PUBLIC_URL; the second run creates nothing, sets no secret, migrates before its
// one deploy. No network and no account.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";

const root = path.resolve(import.meta.dirname, "../..");

function run(dir, stateFile) {
  const res = spawnSync(process.execPath, [path.join(root, "scripts/deploy.mjs")], {
    cwd: root,
    encoding: "utf8",
    env: {
      ...process.env,
      DEPLOY_WRANGLER_BIN: path.join(root, "test/e2e/fixtures/fake-wrangler.mjs"),
      DEPLOY_STATE_DIR: path.join(dir, "deploy-state"),
      FAKE_WRANGLER_STATE: stateFile,
    },
  });
  assert.equal(res.status, 0, `${res.stdout}\n${res.stderr}`);
  const state = JSON.parse(readFileSync(stateFile, "utf8"));
  const calls = state.calls;
  state.calls = [];
  writeFileSync(stateFile, JSON.stringify(state));
  return { out: res.stdout, calls, state };
}

describe("npm run deploy on an account that has nothing", () => {
  it("creates everything once, and a second run changes nothing", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "deploy-script-"));
    const stateFile = path.join(dir, "account.json");
    writeFileSync(stateFile, JSON.stringify({ queues: [], d1: [], workers: {}, migrated: {}, calls: [] }));
    try {
      const first = run(dir, stateFile);
      const queues = ["publish-jobs", "webhook-deliveries", "publish-claims", "publish-jobs-dlq"];
      assert.deepEqual([...first.state.queues].sort(), [...queues].sort());
      assert.deepEqual(first.state.d1, ["social-publisher"]);
      assert.deepEqual(first.state.migrated, { "social-publisher": true });
      const worker = first.state.workers["edge-social-publisher"];
      assert.deepEqual([...worker.secrets].sort(), [
        "ADMIN_TOKEN",
        "AUTH_SECRET",
        "TOKEN_ENCRYPTION_KEY",
        "UPLOAD_SIGNING_KEY",
      ]);
      assert.deepEqual(worker.vars, { PUBLIC_URL: "https://edge-social-publisher.acct.workers.dev" });
      const order = first.calls.map((c) => c.split(" ").slice(0, 2).join(" "));
      // The database the deploy provisions is migrated after it; the second deploy carries PUBLIC_URL.
      assert.ok(order.indexOf("d1 migrations") > order.indexOf("deploy --secrets-file"), order.join("\n"));
      assert.equal(order.filter((c) => c.startsWith("deploy")).length, 2);
      assert.match(first.out, /https:\/\/edge-social-publisher\.acct\.workers\.dev\/api\/oauth\/x\/callback/);
      assert.match(first.out, /ADMIN_TOKEN=\S{40,}/);

      const second = run(dir, stateFile);
      assert.deepEqual(second.state, { ...first.state, calls: [] });
      const calls2 = second.calls;
      assert.equal(calls2.filter((c) => c.startsWith("queues create")).length, 0);
      assert.equal(calls2.filter((c) => c.includes("--secrets-file")).length, 0);
      const deploys = calls2.filter((c) => c.startsWith("deploy"));
      assert.deepEqual(deploys, ["deploy --var PUBLIC_URL:https://edge-social-publisher.acct.workers.dev"]);
      // The database exists now: migrations run before the code that needs them.
      assert.ok(calls2.indexOf("d1 migrations apply DB --remote") < calls2.indexOf(deploys[0]), calls2.join("\n"));
      assert.match(second.out, /ADMIN_TOKEN was set on an earlier run/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
