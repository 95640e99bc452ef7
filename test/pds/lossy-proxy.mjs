// A loopback HTTP proxy in front of the PDS that can lose one answer: the request reaches the PDS and is carried
// out there, then the caller gets no answer (the connection is cut) or a gateway's 502 instead of the PDS's.
import { createServer } from "node:http";
import { freePort } from "./local-pds.mjs";

export async function startLossyProxy(target) {
  /** Answers to lose, each once: the first request to `nsid` whose body contains `bodyIncludes`. */
  const lose = [];
  /** Every request forwarded: its nsid and body. */
  const seen = [];
  const server = createServer(async (req, res) => {
    const nsid = new URL(req.url, "http://proxy").pathname.replace(/^\/xrpc\//, "");
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    seen.push({ nsid, body: Buffer.concat(chunks).toString("utf8") });
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.connection;
    delete headers["content-length"];
    const upstream = await fetch(new URL(req.url, target), {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const body = Buffer.from(await upstream.arrayBuffer());
    const sent = Buffer.concat(chunks).toString("utf8");
    const rule = lose.findIndex((r) => r.nsid === nsid && sent.includes(r.bodyIncludes));
    if (rule >= 0) {
      const [{ mode }] = lose.splice(rule, 1);
      if (mode === "cut") {
        req.socket.destroy();
        return;
      }
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html><body><h1>502 Bad Gateway</h1></body></html>");
      return;
    }
    const out = Object.fromEntries(upstream.headers);
    delete out["content-encoding"];
    delete out["content-length"];
    delete out["transfer-encoding"];
    res.writeHead(upstream.status, out);
    res.end(body);
  });
  const port = await freePort();
  await new Promise((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    /** mode "cut": the connection is closed without an answer; "502": a gateway error page instead. */
    loseAnswer(nsid, bodyIncludes, mode) {
      lose.push({ nsid, bodyIncludes, mode });
    },
    /** How many requests to `nsid` whose body contains `bodyIncludes` reached the PDS. */
    calls: (nsid, bodyIncludes = "") => seen.filter((r) => r.nsid === nsid && r.body.includes(bodyIncludes)).length,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
