// The SDK (sdk/) and the dashboard (web/) cannot drift from the API (issue 27): sdk/schema.d.ts is openapi-typescript's
// output for sdk/openapi.json (which test/routes/sdk-drift.test.ts holds equal to the served document), and the SDK
// and every page that calls the API through it type-check against it. A node test: openapi-typescript and tsc run
// in Node, not in workerd. `npm test` runs it as its "sdk" part.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { DOCUMENT_FILE, SCHEMA_FILE, schemaSource } from "../../scripts/sdk-generate.mjs";

const root = path.resolve(import.meta.dirname, "../..");

describe("SDK", () => {
  it("sdk/schema.d.ts is openapi-typescript's output for sdk/openapi.json (run npm run sdk:generate when this fails)", async () => {
    const document = JSON.parse(readFileSync(DOCUMENT_FILE, "utf8"));
    assert.equal(readFileSync(SCHEMA_FILE, "utf8"), await schemaSource(document));
  });

  it("the SDK and the dashboard type-check against it (tsc -p web/tsconfig.json)", () => {
    const res = spawnSync(path.join(root, "node_modules/.bin/tsc"), ["--noEmit", "-p", "web/tsconfig.json"], {
      cwd: root,
      encoding: "utf8",
    });
    assert.equal(res.status, 0, `${res.stdout}${res.stderr}`);
  });

  it("web/ calls the API only through the SDK: no fetch, Request or XMLHttpRequest of its own", () => {
    // A file that needs what openapi-fetch cannot give (upload progress needs XMLHttpRequest) is listed here, with
    // its request typed from sdk/schema.d.ts.
    // pages/composer/upload.ts: sends the file to the signed `upload_url` of `POST /api/uploads` (SDK-typed) and reads
    // the answer as the SDK's `StoredUpload`.
    const allowed = new Set(["pages/composer/upload.ts"]);
    const files = readdirSync(path.join(root, "web"), { recursive: true, encoding: "utf8" }).filter((f) =>
      /\.tsx?$/.test(f),
    );
    const offenders = files
      .filter((f) => !allowed.has(f.split(path.sep).join("/")))
      .filter((f) =>
        /\bfetch\s*\(|\bnew Request\s*\(|\bXMLHttpRequest\b/.test(readFileSync(path.join(root, "web", f), "utf8")),
      );
    assert.deepEqual(offenders, []);
  });
});
