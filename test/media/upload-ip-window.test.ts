import { describe, expect, it } from "vitest";
import { clientWindowKey } from "../../src/services/uploads/upload-guard";
import { call } from "../support/harness";

const TOKEN = "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a";
const send = (ip: string) =>
  call("POST", `/api/uploads/${TOKEN}?expires=1&workspace_id=x&signature=y`, {
    rawBody: "x",
    headers: { "CF-Connecting-IP": ip, "Content-Type": "multipart/form-data; boundary=x" },
  });

describe("per-IP window of the signed upload endpoint", () => {
  it("keys IPv6 clients by their /64 and IPv4-mapped addresses by their IPv4", () => {
    expect(clientWindowKey("2001:db8:1:2::1")).toBe("2001:db8:1:2::/64");
    expect(clientWindowKey("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(clientWindowKey("2001:DB8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientWindowKey("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(clientWindowKey("198.51.100.7")).toBe("198.51.100.7");
    expect(clientWindowKey("unknown")).toBe("unknown");
  });

  it("rotating addresses inside one /64 does not escape the limit; another /64 has its own window", async () => {
    const net = "2a00:5f1"; // no other test of this file (storage is per file) sends from it
    const minute = Math.floor(Date.now() / 60_000);
    const statuses: number[] = [];
    for (let i = 1; i <= 11; i++) statuses.push((await send(`${net}:77:1:${i.toString(16)}::${i}`)).status);
    if (Math.floor(Date.now() / 60_000) !== minute) return; // a window boundary reset the count
    // 10 per minute (UPLOAD_RATE_LIMIT_PER_MINUTE): each answer is the signature's 403 until the 11th.
    expect(statuses).toEqual([...Array(10).fill(403), 429]);
    const other = await send(`${net}:77:2::1`);
    expect(other.status).toBe(403);
  });
});
