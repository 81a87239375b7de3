/**
 * vitest globalSetup: one embedded PostgreSQL for the whole run, in a fresh temp directory.
 * A database `template_defguard` is migrated once; every test file clones it
 * (tests/setup/per-file.ts), which is much faster than migrating per file.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres, type EmbeddedDb } from "../../lib/db/embedded";
import { runMigrations } from "../../lib/db/migrate";
import { testLicence } from "../fixtures/licence";

declare module "vitest" {
  export interface ProvidedContext {
    /** Superuser URL of the test cluster (database `defguard`), for CREATE DATABASE. */
    pgAdminUrl: string;
    /** The migrated template every test database is cloned from. */
    pgTemplate: string;
  }
}

export const TEMPLATE_DB = "template_defguard";

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

let embedded: EmbeddedDb | null = null;
let dir: string | null = null;

export async function setup(project: TestProject): Promise<void> {
  try {
    await start(project);
  } catch (err) {
    await teardown();
    throw err;
  }
}

async function start(project: TestProject): Promise<void> {
  dir = mkdtempSync(join(tmpdir(), "defguard-vitest-"));
  // As root, the server runs as the `postgres` account: a directory it can enter keeps the
  // cluster here rather than in the system directory (lib/db/embedded.ts).
  chmodSync(dir, 0o755);
  const password = randomBytes(18).toString("base64url");
  embedded = await startEmbeddedPostgres(join(dir, "pg"), password);

  const admin = new pg.Client({ connectionString: embedded.url });
  await admin.connect();
  try {
    // A throwaway cluster: durability buys nothing and costs seconds in every CREATE DATABASE
    // and in the shutdown checkpoint.
    await admin.query("ALTER SYSTEM SET fsync = off");
    await admin.query("ALTER SYSTEM SET synchronous_commit = off");
    await admin.query("ALTER SYSTEM SET full_page_writes = off");
    await admin.query("SELECT pg_reload_conf()");
    await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  } finally {
    await admin.end();
  }
  const templateUrl = withDatabase(embedded.url, TEMPLATE_DB);
  await runMigrations(templateUrl);
  const tpl = new pg.Client({ connectionString: templateUrl });
  await tpl.connect();
  try {
    // The settings row as the first start leaves it (before bootstrap marks it initialised):
    // services may rely on it. tests/auth.test.ts covers a database without it.
    await tpl.query("INSERT INTO settings (id) VALUES (1) ON CONFLICT DO NOTHING");
    // An unlimited test licence (tests/fixtures/licence.ts), trusted through the extra key that
    // tests/setup/per-file.ts sets: suites may go past the free tier and use enterprise routes.
    // Licence and gate tests clear or replace it (tests/helpers.ts setLicence).
    await tpl.query("UPDATE settings SET license = $1 WHERE id = 1", [testLicence({ customer: "vitest" })]);
  } finally {
    await tpl.end();
  }
  const admin2 = new pg.Client({ connectionString: embedded.url });
  await admin2.connect();
  try {
    // Nobody may connect to the template: a stray connection would block every clone.
    await admin2.query(`ALTER DATABASE ${TEMPLATE_DB} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
  } finally {
    await admin2.end();
  }

  project.provide("pgAdminUrl", embedded.url);
  project.provide("pgTemplate", TEMPLATE_DB);
}

export async function teardown(): Promise<void> {
  try {
    await embedded?.stop();
  } finally {
    embedded = null;
    // Deleting a cluster's thousands of files takes seconds: let `rm` do it in the background.
    if (dir) spawn("rm", ["-rf", dir], { detached: true, stdio: "ignore" }).unref();
    dir = null;
  }
}
