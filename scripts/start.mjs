#!/usr/bin/env node
// `npm start`: build the Next.js app when no current build exists, then run server.ts.
import { spawnSync, spawn } from "node:child_process";
import { existsSync, statSync, readdirSync } from "node:fs";
import { join } from "node:path";

process.env.NEXT_TELEMETRY_DISABLED = "1";
const root = process.cwd();
const buildId = join(root, process.env.NEXT_DIST_DIR || ".next", "BUILD_ID");

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

function needsBuild() {
  if (process.env.DEFGUARD_SKIP_BUILD === "1") return false;
  if (!existsSync(buildId)) return true;
  const built = statSync(buildId).mtimeMs;
  const sources = ["app", "components", "lib", "messages", "public"].filter((d) => existsSync(join(root, d)));
  const newest = Math.max(...sources.map((d) => newestMtime(join(root, d))), statSync(join(root, "package.json")).mtimeMs);
  return newest > built;
}

if (needsBuild()) {
  console.log("[defguard] building the console (first start or sources changed)...");
  const r = spawnSync(process.execPath, [join(root, "node_modules/next/dist/bin/next"), "build"], { stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// One process (tsx as a loader, plus the hook that lets server.ts import `server-only` modules):
// signals reach the server directly.
const child = spawn(process.execPath, ["--import", "./scripts/server-only-hook.mjs", "--import", "tsx", "server.ts", ...process.argv.slice(2)], {
  stdio: "inherit",
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
