#!/usr/bin/env node
/**
 * `npm test`: everything a fresh machine can run (docs/architecture.md, "Tests"), in order:
 *   1. the type check (`tsc --noEmit`), counted as one test, and the architecture check
 *      (scripts/check-architecture.mjs: import and reference rules), counted as one test;
 *   2. unit and integration tests (vitest, real embedded PostgreSQL);
 *   3. the browser tests (Playwright in Debian's Chromium), when playwright.config.ts exists;
 *   4. the network tests (vitest.net.config.ts: WireGuard tunnels in network namespaces; they
 *      skip with a printed reason where they cannot run, e.g. without root).
 * Each runner writes a JSON report that is read for the numbers; every test is counted once.
 * The last line is the total: "N passed, N failed" (", N skipped" when some were skipped).
 * Exit code 1 when anything failed or a runner crashed without results.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

process.env.NEXT_TELEMETRY_DISABLED = "1";
const root = process.cwd();
const tmp = mkdtempSync(join(tmpdir(), "defguard-test-"));
const bin = {
  tsc: join(root, "node_modules/typescript/bin/tsc"),
  vitest: join(root, "node_modules/vitest/vitest.mjs"),
  playwright: join(root, "node_modules/@playwright/test/cli.js"),
};

/** @type {{name: string, passed: number, failed: number, skipped: number, note?: string}[]} */
const results = [];

function banner(text) {
  console.log(`\n${"=".repeat(72)}\n ${text}\n${"=".repeat(72)}`);
}

function run(args, env = {}) {
  const r = spawnSync(process.execPath, args, { stdio: "inherit", env: { ...process.env, ...env }, cwd: root });
  if (r.error) console.error(`[test] could not start ${args[0]}: ${r.error.message}`);
  return r.status ?? (r.signal ? 128 : 1);
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return null;
  }
}

// 1. Type check -------------------------------------------------------------------------
banner("typecheck: tsc --noEmit -p tsconfig.check.json");
{
  const code = run([bin.tsc, "--noEmit", "-p", "tsconfig.check.json"]);
  results.push({ name: "typecheck", passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0 });
  console.log(code === 0 ? "typecheck: passed" : `typecheck: FAILED (tsc exit code ${code})`);
}

// 1b. Architecture check ------------------------------------------------------------------
banner("architecture: node scripts/check-architecture.mjs (import and reference rules of docs/architecture.md)");
{
  const code = run([join(root, "scripts/check-architecture.mjs")]);
  results.push({ name: "architecture", passed: code === 0 ? 1 : 0, failed: code === 0 ? 0 : 1, skipped: 0 });
  console.log(code === 0 ? "architecture: passed" : `architecture: FAILED (exit code ${code})`);
}

// 2. vitest -------------------------------------------------------------------------------
/** Run vitest with a JSON report and count it (a file that failed outside its tests counts once). */
function runVitest(name, extraArgs) {
  const out = join(tmp, `${name}.json`);
  const code = run([bin.vitest, "run", ...extraArgs, "--reporter=default", "--reporter=json", `--outputFile.json=${out}`]);
  const report = readJson(out);
  if (!report) {
    results.push({ name, passed: 0, failed: 1, skipped: 0, note: `crashed without results (exit code ${code})` });
    return;
  }
  const passed = report.numPassedTests ?? 0;
  let failed = report.numFailedTests ?? 0;
  const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  // A file that failed as a whole (import error, failing beforeAll) has no failed test of
  // its own: count it once so that it cannot pass unnoticed.
  const brokenFiles = (report.testResults ?? []).filter(
    (f) => f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed"),
  );
  for (const f of brokenFiles) console.log(`[test] ${name}: ${f.name} failed outside its tests: ${(f.message ?? "").split("\n")[0]}`);
  failed += brokenFiles.length;
  let note;
  if (failed === 0 && (code !== 0 || report.success === false)) {
    failed = 1;
    note = `vitest exited with code ${code} (unhandled error?)`;
  }
  results.push({ name, passed, failed, skipped, note });
}

banner("unit and integration tests: vitest");
runVitest("vitest", []);

// 3. Playwright ---------------------------------------------------------------------------
if (!existsSync(join(root, "playwright.config.ts"))) {
  console.log("\nplaywright: skipped (no playwright.config.ts)");
} else {
  banner("browser tests: playwright");
  const out = join(tmp, "playwright.json");
  const code = run([bin.playwright, "test", "--reporter=line,json"], { PLAYWRIGHT_JSON_OUTPUT_FILE: out });
  const report = readJson(out);
  if (!report || !report.stats) {
    results.push({ name: "playwright", passed: 0, failed: 1, skipped: 0, note: `crashed without results (exit code ${code})` });
  } else {
    const s = report.stats;
    const passed = (s.expected ?? 0) + (s.flaky ?? 0);
    let failed = s.unexpected ?? 0;
    const skipped = s.skipped ?? 0;
    let note;
    if (failed === 0 && ((report.errors ?? []).length > 0 || code !== 0)) {
      failed = 1;
      const first = report.errors?.[0]?.message?.split("\n")[0];
      note = first ? `run error: ${first}` : `playwright exited with code ${code}`;
    }
    if (s.flaky) note = [note, `${s.flaky} flaky`].filter(Boolean).join("; ");
    results.push({ name: "playwright", passed, failed, skipped, note });
  }
}

// 4. Network tests -------------------------------------------------------------------------
banner("network tests: vitest --config vitest.net.config.ts (WireGuard in network namespaces)");
runVitest("net", ["--config", "vitest.net.config.ts"]);

rmSync(tmp, { recursive: true, force: true });

// Summary ---------------------------------------------------------------------------------
banner("summary");
const total = { passed: 0, failed: 0, skipped: 0 };
for (const r of results) {
  total.passed += r.passed;
  total.failed += r.failed;
  total.skipped += r.skipped;
  const line = `${r.name.padEnd(12)} ${String(r.passed).padStart(5)} passed ${String(r.failed).padStart(5)} failed ${String(r.skipped).padStart(5)} skipped`;
  console.log(r.note ? `${line}  (${r.note})` : line);
}
console.log(`${total.passed} passed, ${total.failed} failed${total.skipped > 0 ? `, ${total.skipped} skipped` : ""}`);
process.exitCode = total.failed > 0 ? 1 : 0;
