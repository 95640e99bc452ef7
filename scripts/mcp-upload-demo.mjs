#!/usr/bin/env node
// The agent upload flow against a running server, printed as a transcript:
//   API_KEY=esp_… node scripts/mcp-upload-demo.mjs [base-url] [image-file]
import { readFileSync } from "node:fs";
import { crc32, deflateSync } from "node:zlib";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const base = process.argv[2] ?? "http://127.0.0.1:8787";
const key = process.env.API_KEY;
if (!key) throw new Error("set API_KEY");
const show = (label, value) => console.log(`\n${label}\n${JSON.stringify(value, null, 2)}`);

const client = new Client({ name: "upload-demo", version: "1.0.0" });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  }),
);
const call = async (name, args = {}) => {
  const res = await client.callTool({ name, arguments: args });
  show(`→ ${name} ${JSON.stringify(args)}`, res.structuredContent);
  if (res.isError) process.exit(1);
  return res.structuredContent;
};

const accounts = (await call("list-social-accounts-tool")).items;
let account = accounts.find((a) => a.platform === "x" && a.is_active);
if (!account) {
  const res = await fetch(`${base}/api/social-accounts`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      platform: "x",
      display_name: "Demo X",
      username: "demo",
      credentials: { access_token: "demo" },
    }),
  });
  account = await res.json();
}
const post = await call("create-post-tool", {
  content: "Chart of the week",
  platforms: [{ social_account_id: account.id, content_type: "x_post" }],
});
const upload = await call("request-media-upload-tool");

/** A small RGB gradient PNG, made here so the demo needs no file. */
function gradientPng(width, height) {
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = Buffer.alloc(height * (1 + width * 3));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + width * 3);
    raw[row] = 0; // filter: none
    for (let x = 0; x < width; x++) raw.set([(x * 255) / width, (y * 255) / height, 128], row + 1 + x * 3);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const bytes = process.argv[3] ? readFileSync(process.argv[3]) : gradientPng(320, 200);
const form = new FormData();
form.append(upload.field_name, new Blob([bytes]), process.argv[3]?.split("/").pop() ?? "chart.png");
const res = await fetch(upload.upload_url, { method: "POST", body: form });
show(
  `→ POST ${upload.upload_url.replace(/signature=[0-9a-f]+/, "signature=…")} (multipart, no Authorization) — HTTP ${res.status}`,
  await res.json(),
);

const attached = await call("attach-media-from-upload-tool", { post_id: post.id, upload_token: upload.upload_token });
console.log(`\nmedia on the post: ${attached.post.media.map((m) => m.url).join(", ")}`);
await client.close();
