/**
 * Build the Next.js app into a separate dist directory (default `.next-e2e`) when it is
 * missing or older than the sources. Shared by the Playwright global setup and the benchmarks.
 *
 * The staleness rule follows scripts/start.mjs: the build is current when its BUILD_ID is
 * newer than every file under app/, components/, lib/, messages/, public/ and the build
 * configuration files.
 *
 * `next build` rewrites tsconfig.json (it adds `<distDir>/types/**` to "include") and
 * next-env.d.ts (it points them at `<distDir>/types`) whenever the dist directory is not the
 * one they already name. Those are side effects of building into a test-only directory, so
 * they are undone afterwards when the files did not name that directory before the build.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const E2E_DIST_DIR = ".next-e2e";

const SOURCE_DIRS = ["app", "components", "lib", "messages", "public"];
const SOURCE_FILES = ["package.json", "next.config.ts", "postcss.config.mjs"];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const p = join(dir, entry.name);
    try {
      if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
      else newest = Math.max(newest, statSync(p).mtimeMs);
    } catch {
      // A file removed while we walk (another process editing sources) does not matter.
    }
  }
  return newest;
}

/** Why a build is needed, or null when `<root>/<distDir>/BUILD_ID` is current. */
export function buildStaleness(root: string, distDir = E2E_DIST_DIR): string | null {
  const buildId = join(root, distDir, "BUILD_ID");
  if (!existsSync(buildId)) return `${distDir}/BUILD_ID is missing`;
  const built = statSync(buildId).mtimeMs;
  let newest = 0;
  let newestWhat = "";
  for (const d of SOURCE_DIRS) {
    const p = join(root, d);
    if (!existsSync(p)) continue;
    const m = newestMtime(p);
    if (m > newest) [newest, newestWhat] = [m, `${d}/`];
  }
  for (const f of SOURCE_FILES) {
    const p = join(root, f);
    if (!existsSync(p)) continue;
    const m = statSync(p).mtimeMs;
    if (m > newest) [newest, newestWhat] = [m, f];
  }
  return newest > built ? `sources changed since the last build (${newestWhat})` : null;
}

function lockDir(root: string, distDir: string): string {
  const key = createHash("sha256").update(resolve(root, distDir)).digest("hex").slice(0, 16);
  return join(tmpdir(), `defguard-build-lock-${key}`);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** A directory lock so that the e2e setup and a benchmark never build the same directory at once. */
async function withBuildLock<T>(root: string, distDir: string, fn: () => Promise<T>): Promise<T> {
  const dir = lockDir(root, distDir);
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      mkdirSync(dir);
      writeFileSync(join(dir, "pid"), String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      let owner = 0;
      try {
        owner = Number(readFileSync(join(dir, "pid"), "utf8"));
      } catch {
        // The owner is between mkdir and writing its pid; wait.
      }
      if (owner && !pidAlive(owner)) {
        rmSync(dir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the build lock ${dir}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface GeneratedFiles {
  tsconfigNamedDist: boolean;
  nextEnv: string | null;
}

function mentionsDist(text: string, distDir: string): boolean {
  return text.includes(`${distDir}/`);
}

function snapshotGenerated(root: string, distDir: string): GeneratedFiles {
  const tsconfig = join(root, "tsconfig.json");
  const nextEnv = join(root, "next-env.d.ts");
  return {
    tsconfigNamedDist: existsSync(tsconfig) && mentionsDist(readFileSync(tsconfig, "utf8"), `"${distDir}`),
    nextEnv: existsSync(nextEnv) ? readFileSync(nextEnv, "utf8") : null,
  };
}

function undoGenerated(root: string, distDir: string, before: GeneratedFiles, log: (m: string) => void): void {
  const tsconfig = join(root, "tsconfig.json");
  if (!before.tsconfigNamedDist && existsSync(tsconfig)) {
    const text = readFileSync(tsconfig, "utf8");
    if (mentionsDist(text, `"${distDir}`)) {
      try {
        const cfg = JSON.parse(text) as { include?: string[] };
        if (Array.isArray(cfg.include)) {
          cfg.include = cfg.include.filter((p) => !p.startsWith(`${distDir}/`));
          writeFileSync(tsconfig, JSON.stringify(cfg, null, 2) + "\n");
          log(`[e2e] removed the ${distDir}/types entries next build added to tsconfig.json`);
        }
      } catch {
        log(`[e2e] warning: next build added ${distDir} entries to tsconfig.json (left as is: not plain JSON)`);
      }
    }
  }
  const nextEnv = join(root, "next-env.d.ts");
  if (before.nextEnv !== null && !mentionsDist(before.nextEnv, `./${distDir}`) && existsSync(nextEnv)) {
    const now = readFileSync(nextEnv, "utf8");
    if (now !== before.nextEnv && mentionsDist(now, `./${distDir}`)) writeFileSync(nextEnv, before.nextEnv);
  }
}

function runBuild(root: string, distDir: string, logFile: string | undefined): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const chunks: Buffer[] = [];
    const child = spawn(process.execPath, [join(root, "node_modules/next/dist/bin/next"), "build"], {
      cwd: root,
      env: { ...process.env, NEXT_DIST_DIR: distDir, NEXT_TELEMETRY_DISABLED: "1", NODE_ENV: "production" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", (c: Buffer) => chunks.push(c));
    child.stderr.on("data", (c: Buffer) => chunks.push(c));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      const out = Buffer.concat(chunks).toString("utf8");
      if (logFile) writeFileSync(logFile, out);
      if (code === 0) resolvePromise();
      else {
        const tail = out.split("\n").slice(-40).join("\n");
        reject(new Error(`next build into ${distDir} failed (${signal ?? `exit ${code}`}):\n${tail}`));
      }
    });
  });
}

export interface EnsureBuildOptions {
  root?: string;
  distDir?: string;
  log?: (m: string) => void;
  /** Where to keep the full `next build` output. */
  logFile?: string;
}

/** Build when needed; returns true when a build ran. */
export async function ensureBuild(opts: EnsureBuildOptions = {}): Promise<boolean> {
  const root = opts.root ?? process.cwd();
  const distDir = opts.distDir ?? E2E_DIST_DIR;
  const log = opts.log ?? ((m: string) => console.log(m));
  if (!buildStaleness(root, distDir)) return false;
  return withBuildLock(root, distDir, async () => {
    // Another process may have built while we waited for the lock.
    const why = buildStaleness(root, distDir);
    if (!why) return false;
    log(`[e2e] building the console into ${distDir}: ${why}`);
    const t0 = Date.now();
    const before = snapshotGenerated(root, distDir);
    try {
      await runBuild(root, distDir, opts.logFile);
    } finally {
      undoGenerated(root, distDir, before, log);
    }
    log(`[e2e] build finished in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    return true;
  });
}
