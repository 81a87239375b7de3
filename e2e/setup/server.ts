/**
 * Start and stop the console as a child process for tests and benchmarks: a fresh or given
 * data directory, a free loopback port, output to a log file that is parsed for the
 * generated admin password and the embedded PostgreSQL port.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { createServer } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { E2E_DIST_DIR } from "./build";
import { EXTRA_KEY_ENV, TEST_LICENCE_PUBLIC_KEY } from "../../tests/fixtures/licence";

/** Ports other sessions on this machine use. */
const RESERVED = (p: number) => p === 8000 || p === 8100 || (p >= 8300 && p <= 8399);

export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await new Promise<number>((res, rej) => {
      const srv = createServer();
      srv.unref();
      srv.on("error", rej);
      srv.listen(0, "127.0.0.1", () => {
        const addr = srv.address();
        const p = typeof addr === "object" && addr ? addr.port : 0;
        srv.close(() => res(p));
      });
    });
    if (port && !RESERVED(port)) return port;
  }
  throw new Error("no free port found");
}

/**
 * A temp directory under /tmp for a data directory: run as root, the embedded PostgreSQL runs
 * as the unprivileged "postgres" account, and when that account can enter the directory
 * (mkdtemp creates it 0700) the cluster stays inside it instead of going to the system
 * directory (lib/db/embedded.ts), so removing the temp directory removes everything.
 */
export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

export interface StartOptions {
  root?: string;
  /**
   * "server" (or "import"): node --import <server-only hook> --import tsx server.ts, one process
   * as npm start runs it, so signals reach the server itself; "start": node scripts/start.mjs.
   */
  entry?: "server" | "start" | "import";
  dataDir: string;
  logFile: string;
  distDir?: string;
  port?: number;
  /** gRPC port for gateways (default: a free port). */
  grpcPort?: number;
  /** Extra environment; a value of undefined removes the variable. */
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** Called with the child's PID right after it is spawned (before it is healthy). */
  onSpawn?: (pid: number) => void;
  /** Health polling interval. */
  pollMs?: number;
}

export interface RunningServer {
  child: ChildProcess;
  pid: number;
  port: number;
  grpcPort: number;
  baseURL: string;
  dataDir: string;
  logFile: string;
  /** From spawn to the first 200 from /api/v1/health, in ms. */
  startupMs: number;
  /** The generated admin password, when this start created the admin. */
  adminPassword: string | null;
  /** The embedded PostgreSQL port, when the server started one. */
  dbPort: number | null;
  log(): string;
  /** SIGTERM and wait for the exit; returns the time it took in ms. */
  stop(): Promise<number>;
}

export function readLog(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** The password printed once on first start: the first non-empty line after "generated password:". */
export function parseGeneratedPassword(log: string): string | null {
  const m = /generated password:[ \t]*\r?\n(?:[ \t]*\r?\n)*[ \t]*(\S+)[ \t]*\r?\n/.exec(log);
  return m ? m[1] : null;
}

export function parseDbPort(log: string): number | null {
  const m = /embedded PostgreSQL running from .* on 127\.0\.0\.1:(\d+)/.exec(log);
  return m ? Number(m[1]) : null;
}

function tail(text: string, lines = 40): string {
  return text.split("\n").slice(-lines).join("\n");
}

async function healthStatus(baseURL: string): Promise<number | null> {
  try {
    const res = await fetch(`${baseURL}/api/v1/health`, { signal: AbortSignal.timeout(5000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return null;
  }
}

export async function startServer(opts: StartOptions): Promise<RunningServer> {
  const root = opts.root ?? process.cwd();
  const port = opts.port ?? (await freePort());
  const grpcPort = opts.grpcPort ?? (await freePort());
  // "localhost", not an IP: WebAuthn refuses IP addresses as relying-party ids.
  const baseURL = `http://localhost:${port}`;
  const env: Record<string, string | undefined> = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: "1",
    NEXT_DIST_DIR: opts.distDir ?? E2E_DIST_DIR,
    DEFGUARD_DATA_DIR: opts.dataDir,
    PORT: String(port),
    // Dual-stack, so "localhost" works whether it resolves to 127.0.0.1 or ::1.
    HOST: "::",
    DEFGUARD_URL: baseURL,
    DEFGUARD_GRPC_PORT: String(grpcPort),
    DEFGUARD_COOKIE_INSECURE: "1",
    DEFGUARD_DEFAULT_ADMIN_PASSWORD: undefined,
    DATABASE_URL: undefined,
    DEFGUARD_EMBEDDED_DB_PORT: undefined,
    NODE_ENV: undefined,
    // Trust the test licence key (tests/fixtures/licence.ts; docs/licence.md, "Testing").
    [EXTRA_KEY_ENV]: TEST_LICENCE_PUBLIC_KEY,
    ...opts.env,
  };
  for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];

  const entry = opts.entry ?? "server";
  const args =
    entry === "start"
      ? [join(root, "scripts/start.mjs")]
      : ["--import", join(root, "scripts/server-only-hook.mjs"), "--import", "tsx", "server.ts"];
  // Output goes straight to a file: nothing in this process has to keep draining a pipe.
  const fd = openSync(opts.logFile, "a");
  const t0 = performance.now();
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd: root,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", fd, fd],
  });
  closeSync(fd);
  let exited: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exitPromise = new Promise<void>((res) => {
    child.on("exit", (code, signal) => {
      exited = { code, signal };
      res();
    });
  });
  child.on("error", () => {});
  const pid = child.pid!;
  opts.onSpawn?.(pid);

  const stop = async (): Promise<number> => {
    const s0 = performance.now();
    if (exited) return 0;
    child.kill("SIGTERM");
    const done = await Promise.race([exitPromise.then(() => true), sleep(30_000).then(() => false)]);
    if (!done) {
      killTree(pid, "SIGKILL");
      await exitPromise;
    }
    return performance.now() - s0;
  };

  const deadline = Date.now() + (opts.timeoutMs ?? 180_000);
  const pollMs = opts.pollMs ?? 50;
  let startupMs = -1;
  for (;;) {
    if (exited) {
      const e = exited as { code: number | null; signal: NodeJS.Signals | null };
      throw new Error(
        `the server exited during start-up (${e.signal ?? `exit ${e.code}`}); log ${opts.logFile}:\n${tail(readLog(opts.logFile))}`,
      );
    }
    const status = await healthStatus(baseURL);
    if (status === 200) {
      startupMs = performance.now() - t0;
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`the server did not become healthy in time; log ${opts.logFile}:\n${tail(readLog(opts.logFile))}`);
    }
    await sleep(pollMs);
  }
  const log = readLog(opts.logFile);
  return {
    child,
    pid,
    port,
    grpcPort,
    baseURL,
    dataDir: opts.dataDir,
    logFile: opts.logFile,
    startupMs,
    adminPassword: parseGeneratedPassword(log),
    dbPort: parseDbPort(log),
    log: () => readLog(opts.logFile),
    stop,
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Whether `pid` is a live process (an exited but not yet reaped one counts as gone). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return true;
  }
}

/** Child PIDs of `pid`, from /proc (Linux). */
function childrenOf(pid: number): number[] {
  const out: number[] = [];
  if (!existsSync("/proc")) return out;
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // pid (comm) state ppid ...; comm may contain spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === pid) out.push(Number(name));
    } catch {
      // The process went away.
    }
  }
  return out;
}

/** Signal a process and everything below it (children first collected, then signalled). */
export function killTree(pid: number, signal: NodeJS.Signals): void {
  const all: number[] = [];
  const walk = (p: number) => {
    all.push(p);
    for (const c of childrenOf(p)) walk(c);
  };
  walk(pid);
  for (const p of all.reverse()) {
    try {
      process.kill(p, signal);
    } catch {
      // Already gone.
    }
  }
}

/**
 * Stop a server known only by its PID (the global teardown runs apart from the setup's
 * ChildProcess handle): SIGTERM, wait up to `graceMs`, then SIGKILL the whole tree.
 */
export async function stopByPid(pid: number, graceMs = 30_000): Promise<"stopped" | "killed" | "not-running"> {
  if (!pidAlive(pid)) return "not-running";
  const tree = [pid];
  const collect = (p: number) => {
    for (const c of childrenOf(p)) {
      tree.push(c);
      collect(c);
    }
  };
  collect(pid);
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (tree.every((p) => !pidAlive(p))) return "stopped";
    await sleep(100);
  }
  for (const p of tree.reverse()) {
    try {
      process.kill(p, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
  return "killed";
}
