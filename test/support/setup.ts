import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach } from "vitest";
import { loadConfig } from "../../src/config";
import { setLogLevel } from "../../src/lib/logger";
import { configureOutboundDns } from "../../src/lib/outbound-guard";
import { assertNoUnexpectedFetches } from "./fake-fetch";

// Storage is isolated per test file; migrations are idempotent so every file applies them once here.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// Code the tests call directly (not through the Worker's handlers, which read LOG_LEVEL) logs nothing either;
// a test about logging sets its own level.
setLogLevel("silent");

// Likewise the outbound guard's name policy, which the handlers set from the config (OUTBOUND_EGRESS=cloudflare in
// vitest.config.ts: the fakes' made-up names are not resolved; test/lib/outbound-dns.test.ts turns it on).
const config = loadConfig(env);
configureOutboundDns({ egress: config.OUTBOUND_EGRESS, dohUrl: config.OUTBOUND_DOH_URL });

afterEach(() => assertNoUnexpectedFetches());
