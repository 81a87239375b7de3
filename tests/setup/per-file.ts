/**
 * Runs before every test file (vitest setupFiles): gives the file its own database, cloned
 * from the migrated template, random server secrets and default cookie settings.
 */
import { randomBytes } from "node:crypto";
import { afterAll } from "vitest";
import { SECRET_NAMES } from "../../lib/config";
import { closeDb } from "../../lib/db";
import { createTestDatabase } from "./db";
import { EXTRA_KEY_ENV, TEST_LICENCE_PUBLIC_KEY } from "../fixtures/licence";

for (const name of Object.values(SECRET_NAMES)) process.env[name] = randomBytes(32).toString("base64url");
delete process.env.DEFGUARD_COOKIE_INSECURE;
delete process.env.DEFGUARD_DEFAULT_ADMIN_PASSWORD;
delete process.env.DEFGUARD_TRUST_PROXY;
process.env.DEFGUARD_DB_POOL_SIZE ??= "10";
process.env.NEXT_TELEMETRY_DISABLED = "1";
// Trust the test licence key: the template database holds an unlimited test licence
// (tests/setup/global.ts), so suites may exceed the free tier; licence tests replace it.
process.env[EXTRA_KEY_ENV] = TEST_LICENCE_PUBLIC_KEY;

process.env.DATABASE_URL = await createTestDatabase();

afterAll(async () => {
  await closeDb();
});
