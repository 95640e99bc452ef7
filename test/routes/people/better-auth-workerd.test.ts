import { scrypt } from "node:crypto";
import { hashPassword, verifyPassword } from "better-auth/crypto";
import { describe, expect, it } from "vitest";

/**
 * better-auth in workerd (nodejs_compat): its password module resolves the `workerd` export condition to
 * `node:crypto` scrypt (native), not the pure-JS fallback that exceeds Workers' CPU limits (better-auth#8860). The hash
 * is better-auth's format (`<salt hex>:<key hex>`, N=16384, r=16, p=1, 64 bytes) and equals node:crypto's own scrypt.
 */
describe("better-auth in workerd", () => {
  it("hashes with scrypt as node:crypto computes it, and verifies", async () => {
    const hash = await hashPassword("correct horse battery");
    expect(hash).toMatch(/^[0-9a-f]{32}:[0-9a-f]{128}$/);
    const [salt, key] = hash.split(":") as [string, string];
    const native = await new Promise<Buffer>((resolve, reject) =>
      scrypt("correct horse battery", salt, 64, { N: 16384, r: 16, p: 1, maxmem: 64 * 1024 * 1024 }, (err, k) =>
        err ? reject(err) : resolve(k),
      ),
    );
    expect(native.toString("hex")).toBe(key);
    expect(await verifyPassword({ hash, password: "correct horse battery" })).toBe(true);
    expect(await verifyPassword({ hash, password: "correct horse batterY" })).toBe(false);
  });
});
