#!/usr/bin/env node
/**
 * `node scripts/start.mjs` (what `npm start` runs): build what is missing or stale, then run
 * the console in THIS process.
 * - the Next.js app (`next build`) when no current build exists;
 * - dist/server.js, server.ts and lib/ compiled to JavaScript (scripts/build-server.mjs);
 * then imports dist/server.js here: one long-lived process, no TypeScript loader, and signals
 * reach the server directly. The builds run in short-lived child processes that exit first.
 *
 * `node scripts/start.mjs gateway` does the same for the gateway agent (dist/gateway.js).
 * In production run `node scripts/start.mjs` (or `node dist/server.js` after a build) rather
 * than `npm start`: npm stays resident as the parent and costs memory for nothing.
 */
import { spawnSync } from "node:child_process";
import { existsSync, statSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

process.env.NEXT_TELEMETRY_DISABLED = "1";
const trace = (step) => {
  if (process.env.DEFGUARD_STARTUP_TRACE !== "1") return;
  const cpu = process.cpuUsage();
  console.log(`[startup] ${performance.now().toFixed(0).padStart(5)} ms (cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms) ${step}`);
};
trace("scripts/start.mjs running");
const root = process.cwd();
const target = process.argv[2] === "gateway" ? "gateway" : "server";
if (target === "gateway") process.argv.splice(2, 1);

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

function needsNextBuild() {
  if (process.env.DEFGUARD_SKIP_BUILD === "1") return false;
  const buildId = join(root, process.env.NEXT_DIST_DIR || ".next", "BUILD_ID");
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  const sources = ["app", "components", "lib", "messages", "public"].filter((d) => existsSync(join(root, d)));
  // next.config.ts too: the console runs with the configuration the build recorded (server.ts).
  const files = ["package.json", "next.config.ts"].filter((f) => existsSync(join(root, f)));
  const newest = Math.max(...sources.map((d) => newestMtime(join(root, d))), ...files.map((f) => statSync(join(root, f)).mtimeMs));
  return newest > built;
}

function run(args, what) {
  const r = spawnSync(process.execPath, args, { stdio: "inherit", cwd: root });
  if (r.status !== 0) {
    console.error(`[defguard] start-up failed: ${what} failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status || 1);
  }
}

if (target === "server" && needsNextBuild()) {
  console.log("[defguard] building the console (first start or sources changed)...");
  run([join(root, "node_modules/next/dist/bin/next"), "build"], "next build");
}

const { isStale, outputOf } = await import(pathToFileURL(join(root, "scripts/build-server.mjs")).href);
// A production image ships dist/ without the TypeScript sources: nothing to compare with.
const hasSources = existsSync(join(root, target === "server" ? "server.ts" : "gateway/index.ts"));
if (hasSources && isStale(root, target)) run([join(root, "scripts/build-server.mjs"), target], `compiling dist/${target}.js`);

trace(`build checked; importing dist/${target}.js`);
await import(pathToFileURL(outputOf(root, target)).href);
