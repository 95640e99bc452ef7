import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach } from "vitest";
import { setLogLevel } from "../../src/lib/logger";
import { assertNoUnexpectedFetches } from "./fake-fetch";

// Storage is isolated per test file; migrations are idempotent so every file applies them once here.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// Code the tests call directly (not through the Worker's handlers, which read LOG_LEVEL) logs nothing either;
// a test about logging sets its own level.
setLogLevel("silent");

afterEach(() => assertNoUnexpectedFetches());
