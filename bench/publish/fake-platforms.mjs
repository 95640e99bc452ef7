// Loopback fake of the three platforms the publishing branch talks to (X, a Bluesky PDS, a Mastodon instance),
// answering the calls a text post makes with the real shapes, and counting what was created so the benchmark
// can tell duplicates apart: X and Mastodon by text, Bluesky by record key and by text.
import { createServer } from "node:http";

const TID_RE = /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/;

export function startFakePlatforms({ port = 0, latencyMs = 0 } = {}) {
  const stats = { x: new Map(), bluesky: new Map(), mastodon: new Map(), requests: 0, rkeys: new Set() };
  const idempotency = new Map();
  let nextId = 1900000000000000000n;
  const id = () => String(++nextId);
  const session = () => ({
    did: "did:plc:bench",
    handle: "bench.test",
    accessJwt: `${b64({ alg: "none" })}.${b64({ exp: Math.floor(Date.now() / 1000) + 7200 })}.sig`,
    refreshJwt: "bench-refresh",
    active: true,
  });

  const server = createServer(async (req, res) => {
    stats.requests++;
    const url = new URL(req.url, "http://fake");
    const body = await readBody(req);
    if (latencyMs) await new Promise((r) => setTimeout(r, latencyMs));
    const send = (status, json, headers = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(json));
    };
    const path = url.pathname;
    if (req.method === "POST" && path === "/2/tweets") {
      const { text } = JSON.parse(body);
      count(stats.x, text);
      return send(
        201,
        { data: { id: id(), text } },
        {
          "x-rate-limit-limit": "100000",
          "x-rate-limit-remaining": "99999",
          "x-rate-limit-reset": String(Math.floor(Date.now() / 1000) + 900),
        },
      );
    }
    // The PLC directory (BLUESKY_PLC_URL points here): did:plc:bench's document names this server as its PDS, so the
    // account's DID verifies against the server that answered the login (docs/security.md, account identity).
    if (req.method === "GET" && path === "/did:plc:bench")
      return send(200, {
        "@context": ["https://www.w3.org/ns/did/v1"],
        id: "did:plc:bench",
        alsoKnownAs: ["at://bench.test"],
        verificationMethod: [],
        service: [
          { id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: `http://${req.headers.host}` },
        ],
      });
    if (path === "/xrpc/com.atproto.server.createSession") return send(200, session());
    if (path === "/xrpc/com.atproto.identity.resolveHandle")
      return send(400, { error: "InvalidRequest", message: "Unable to resolve handle" });
    if (path === "/xrpc/com.atproto.repo.getRecord") {
      const rkey = url.searchParams.get("rkey");
      if (!stats.rkeys.has(rkey)) return send(400, { error: "RecordNotFound", message: "Could not locate record" });
      return send(200, { uri: `at://did:plc:bench/app.bsky.feed.post/${rkey}`, value: {} });
    }
    if (path === "/xrpc/com.atproto.repo.createRecord") {
      const { rkey, record } = JSON.parse(body);
      if (!TID_RE.test(rkey)) return send(400, { error: "InvalidRequest", message: "Invalid TID" });
      if (stats.rkeys.has(rkey)) return send(500, { error: "InternalServerError", message: "Internal Server Error" });
      stats.rkeys.add(rkey);
      count(stats.bluesky, record.text);
      return send(
        200,
        { uri: `at://did:plc:bench/app.bsky.feed.post/${rkey}`, cid: `bafy${rkey}` },
        {
          "ratelimit-limit": "5000",
          "ratelimit-remaining": "4999",
          "ratelimit-reset": String(Math.floor(Date.now() / 1000) + 3600),
          "ratelimit-policy": "5000;w=3600",
        },
      );
    }
    if (path === "/api/v1/accounts/verify_credentials") {
      return send(200, { id: "1", username: "bench", acct: "bench", display_name: "Bench", avatar: "" });
    }
    if (req.method === "POST" && path === "/api/v1/statuses") {
      const key = req.headers["idempotency-key"];
      const { status } = JSON.parse(body);
      let sid = key ? idempotency.get(key) : undefined;
      if (!sid) {
        sid = id();
        if (key) idempotency.set(key, sid);
        count(stats.mastodon, status);
      }
      return send(
        200,
        { id: sid, url: `http://fake/@bench/${sid}`, uri: `http://fake/users/bench/statuses/${sid}` },
        {
          "X-RateLimit-Limit": "300000",
          "X-RateLimit-Remaining": "299999",
          "X-RateLimit-Reset": new Date(Date.now() + 300_000).toISOString(),
        },
      );
    }
    send(404, { error: "Record not found" });
  });

  return new Promise((resolve) => {
    server.listen(port, "127.0.0.1", () => {
      const origin = `http://127.0.0.1:${server.address().port}`;
      resolve({
        origin,
        stats,
        created: () => sum(stats.x) + sum(stats.bluesky) + sum(stats.mastodon),
        duplicates: () => dup(stats.x) + dup(stats.bluesky) + dup(stats.mastodon),
        close: () => new Promise((r) => server.close(r)),
      });
    });
  });
}

function count(map, text) {
  map.set(text, (map.get(text) ?? 0) + 1);
}
const sum = (map) => [...map.values()].reduce((a, b) => a + b, 0);
const dup = (map) => [...map.values()].reduce((a, n) => a + (n - 1), 0);
const b64 = (o) => Buffer.from(JSON.stringify(o)).toString("base64url");

function readBody(req) {
  return new Promise((resolve) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
  });
}
