import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach } from "vitest";
import { assertNoUnexpectedFetches } from "./fake-fetch";

// Storage is isolated per test file; migrations are idempotent so every file applies them once here.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

afterEach(() => assertNoUnexpectedFetches());
