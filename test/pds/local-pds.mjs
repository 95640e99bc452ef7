// A real Bluesky PDS (@atproto/pds from npm) with its PLC directory (@did-plc/server, in-memory database), both on
// 127.0.0.1 inside this Node process. Accounts are created on it like any PDS's users do; the tests read records
// back with its own XRPC endpoints.
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../../sandbox/free-port.mjs";

export { freePort };

const ROOT = path.resolve(import.meta.dirname, "../..");
const require = createRequire(path.join(ROOT, "package.json"));

const versionOf = (pkg) => {
  try {
    return JSON.parse(readFileSync(require.resolve(`${pkg}/package.json`), "utf8")).version;
  } catch {
    return "not installed";
  }
};

export const VERSIONS = {
  "@atproto/pds": versionOf("@atproto/pds"),
  "@did-plc/server": versionOf("@did-plc/server"),
  "better-sqlite3": versionOf("better-sqlite3"),
  node: process.versions.node,
};

/**
 * Why the PDS cannot run here, in one line, or null: its packages are not installed, or its native SQLite driver
 * does not load in this Node (docs/local-pds.md). Only that is a reason to skip; a PDS that is installed but fails
 * to start fails the tests.
 */
export function pdsUnavailable() {
  for (const pkg of ["@atproto/pds", "@did-plc/server"]) {
    try {
      require.resolve(pkg);
    } catch (err) {
      return `${pkg} is not installed: ${oneLine(err)}`;
    }
  }
  try {
    const Database = require("better-sqlite3");
    new Database(":memory:").close();
  } catch (err) {
    return `better-sqlite3 does not load in Node ${process.versions.node}: ${oneLine(err)}`;
  }
  return null;
}

/** Imports the PDS and the PLC server (≈ 15 s on a busy 2-core machine: hundreds of modules). */
export async function importPds() {
  const [pds, plc] = await Promise.all([import("@atproto/pds"), import("@did-plc/server")]);
  return { pds, plc };
}

/** The reason in one line: the message without its require stack (a native module's mismatch spans lines). */
const oneLine = (err) =>
  String(err?.message ?? err)
    .split(/\n\s*(?:Require stack:|at )/)[0]
    .replace(/\s+/g, " ")
    .trim();

/**
 * Starts PLC + PDS. The PDS calls itself `http://localhost:<port>` (its dev-mode public URL, in every DID
 * document); clients reach it at `url` (127.0.0.1, the same listener).
 */
export async function startLocalPds({ pds, plc }, ports = {}) {
  const started = performance.now();
  const plcServer = plc.PlcServer.create({ db: plc.Database.mock(), port: ports.plcPort ?? (await freePort()) });
  const plcListener = await plcServer.start();
  const plcUrl = `http://127.0.0.1:${plcListener.address().port}`;

  const dataDirectory = mkdtempSync(path.join(tmpdir(), "local-pds-"));
  const port = ports.port ?? (await freePort());
  const env = {
    devMode: true,
    port,
    hostname: "localhost",
    dataDirectory,
    blobstoreDiskLocation: path.join(dataDirectory, "blobs"),
    didPlcUrl: plcUrl,
    serviceHandleDomains: [".test"],
    jwtSecret: randomBytes(16).toString("hex"),
    adminPassword: randomBytes(16).toString("hex"),
    plcRotationKeyK256PrivateKeyHex: randomBytes(32).toString("hex"),
    inviteRequired: false,
    rateLimitsEnabled: false,
    // The PDS fetches nothing for these tests; no crawler is told about new commits.
    crawlers: [],
  };
  const server = await pds.PDS.create(pds.envToCfg(env), pds.envToSecrets(env));
  await server.start();
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    plcUrl,
    startupMs: Math.round(performance.now() - started),
    xrpc: (nsid, opts) => xrpc(url, nsid, opts),
    /** A new account and an app password for it, as a person makes one in the app's settings. */
    async createAccount(handle) {
      const password = randomBytes(12).toString("hex");
      const account = await xrpc(url, "com.atproto.server.createAccount", {
        json: { handle, email: `${handle.split(".")[0]}@example.com`, password },
      });
      const appPassword = await xrpc(url, "com.atproto.server.createAppPassword", {
        token: account.accessJwt,
        json: { name: "social publisher" },
      });
      return {
        did: account.did,
        handle: account.handle,
        accessJwt: account.accessJwt,
        appPassword: appPassword.password,
      };
    },
    async close() {
      await server.destroy();
      await plcServer.destroy();
      rmSync(dataDirectory, { recursive: true, force: true });
    },
  };
}

/** One XRPC call; a non-2xx answer throws with the server's `error` and `message`, and keeps them on the error. */
export async function xrpc(base, nsid, { query, json, body, contentType, token } = {}) {
  const url = new URL(`/xrpc/${nsid}`, base);
  for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  let payload = body;
  if (json !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(json);
  } else if (contentType) headers["content-type"] = contentType;
  const res = await fetch(url, { method: payload === undefined ? "GET" : "POST", headers, body: payload });
  const text = await res.text();
  const data = text ? JSON.parse(text) : {};
  if (!res.ok) {
    const err = new Error(`${nsid} → HTTP ${res.status} ${data.error ?? ""}: ${data.message ?? text}`);
    Object.assign(err, { status: res.status, error: data.error, body: data });
    throw err;
  }
  return data;
}
