/**
 * The set-up and tear-down every namespace test file repeats around its own topology: clean-up
 * on exit and on SIGINT/SIGTERM, "stop after the first failure", the console started with its
 * gRPC listener on the root end of the gateway's veth, and the final check that nothing of this
 * run is left behind. What differs between the files (namespaces, links, the agent) stays there.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";
import { afterEach, beforeEach, expect } from "vitest";
import { ensureBuild, E2E_DIST_DIR } from "../setup/build";
import { freePort, makeTempDir, startServer, type RunningServer } from "../setup/server";
import { Api } from "./api";
import { addNamespaces, sh, sleep, stopConsoleSync, type Resources } from "./netns";

type Log = (msg: string) => void;
export type ConsoleOptions = Parameters<typeof startServer>[0];


/** The SIGINT/SIGTERM handlers `cleanUpOnExit` installed for a run, for `tearDownRun` to take off. */
const signalHandlers = new WeakMap<Resources, (sig: NodeJS.Signals) => void>();

/**
 * On process exit, SIGINT or SIGTERM, stop the console that `currentConsole` names at that
 * moment (a test may restart it) and remove everything in `res`.
 */
function cleanUpOnExit(res: Resources, currentConsole: () => RunningServer | null): void {
  const onSignal = (sig: NodeJS.Signals) => {
    res.cleanupSync();
    process.exit(sig === "SIGINT" ? 130 : 143);
  };
  res.extra.push(() => stopConsoleSync(currentConsole()));
  process.once("exit", () => res.cleanupSync());
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  signalHandlers.set(res, onSignal);
}

/**
 * The start of a file's beforeAll: clean-up on exit and signals (see `cleanUpOnExit`), installed
 * before anything can fail; the console built if stale; this run's temporary directory (returned,
 * removed with `res`); and `namespaces` created with their loopback up.
 */
export async function setUpRun(
  res: Resources,
  o: { root: string; tmpPrefix: string; namespaces: string[]; currentConsole: () => RunningServer | null; log: Log },
): Promise<string> {
  cleanUpOnExit(res, o.currentConsole);
  await ensureBuild({ root: o.root, distDir: E2E_DIST_DIR, log: o.log });
  const tmp = makeTempDir(o.tmpPrefix);
  res.dirs.push(tmp);
  await addNamespaces(res, o.namespaces);
  return tmp;
}

/**
 * The end of a file's afterAll (after its agent and console are stopped): remove everything in
 * `res`, take the signal handlers off, log what clean-up had to force, then check that none of
 * `namespaces` and no root-namespace link named with `-<sfx>` is left.
 */
export async function tearDownRun(res: Resources, log: Log, namespaces: string[], sfx: string): Promise<void> {
  const notes = res.cleanupSync();
  const onSignal = signalHandlers.get(res);
  if (onSignal) {
    process.removeListener("SIGINT", onSignal);
    process.removeListener("SIGTERM", onSignal);
  }
  for (const n of notes) log(n);
  const left = await sh("ip", ["netns", "list"]);
  expect(
    namespaces.filter((n) => left.stdout.includes(n)),
    "namespaces left behind",
  ).toEqual([]);
  const links = await sh("ip", ["-o", "link", "show"]);
  expect(links.stdout.includes(`-${sfx}`), "links left behind in the root namespace").toBe(false);
}

/**
 * Inside a describe whose steps build on each other: after the first failed test the rest are
 * skipped, not failed again, and the tail of the agent's log (`agentLog()`, "" before it has
 * one) is printed.
 */
export function stopAfterFirstFailure(agentLog: () => string, log: Log): void {
  let broken = false;
  beforeEach((ctx) => {
    if (broken) ctx.skip();
  });
  afterEach((ctx) => {
    if (ctx.task.result?.state === "fail") {
      broken = true;
      const file = agentLog();
      if (file) log(`agent log (tail):\n${readFileSync(file, "utf8").slice(-4000)}`);
    }
  });
}

/**
 * Start the console from the e2e build: data in `<tmp>/data`, log in `<tmp>/console.log`, HTTP on
 * a free loopback port, gRPC on a free port on `grpcHost` only; `env` adds variables. Answers the
 * options too, so that a test can start it again on the same data and ports.
 */
export async function startConsole(
  root: string,
  tmp: string,
  grpcHost: string,
  env: Record<string, string> = {},
): Promise<{ server: RunningServer; options: ConsoleOptions; grpcPort: number }> {
  const grpcPort = await freePort();
  const dataDir = join(tmp, "data");
  mkdirSync(dataDir);
  chmodSync(dataDir, 0o755);
  const options: ConsoleOptions = {
    root,
    entry: "server",
    distDir: E2E_DIST_DIR,
    dataDir,
    logFile: join(tmp, "console.log"),
    port: await freePort(),
    env: { DEFGUARD_GRPC_PORT: String(grpcPort), DEFGUARD_GRPC_HOST: grpcHost, ...env },
  };
  return { server: await startServer(options), options, grpcPort };
}

/** An API client signed in as the admin with the password the console generated on its first start. */
export async function signInAdmin(server: RunningServer): Promise<Api> {
  const api = new Api(server.baseURL);
  await api.signIn("admin", server.adminPassword!);
  return api;
}

export interface AgentOptions {
  /** The checkout: the agent runs as gateway/index.ts through tsx from there. */
  root: string;
  /** The gateway's namespace. */
  ns: string;
  /** Its stdout and stderr are appended here. */
  logFile: string;
  token: string;
  grpcUrl: string;
  ifname: string;
  /** More variables (HEALTH_PORT, DEFGUARD_HOSTNAME, periods, hooks...). */
  env?: Record<string, string>;
}

/**
 * Start our gateway agent inside `o.ns` with a userspace (wireguard-go) interface, registered in
 * `res` so that clean-up stops it by PID. `exited` resolves with its exit code.
 */
export function spawnAgent(res: Resources, o: AgentOptions): { child: ChildProcess; exited: Promise<number | null> } {
  const fd = openSync(o.logFile, "a");
  const child = spawn("ip", ["netns", "exec", o.ns, process.execPath, "--import", "tsx", "gateway/index.ts"], {
    cwd: o.root,
    stdio: ["ignore", fd, fd],
    env: {
      ...process.env,
      DEFGUARD_TOKEN: o.token,
      DEFGUARD_GRPC_URL: o.grpcUrl,
      DEFGUARD_IFNAME: o.ifname,
      DEFGUARD_USERSPACE: "1",
      ...o.env,
    },
  });
  closeSync(fd);
  // `ip netns exec` execs the command: this PID is the agent's node process.
  res.pids.add(child.pid!);
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, exited };
}

/** For afterAll: SIGTERM the agent if it still runs, and wait for it to exit (at most 8 s). */
export async function stopAgent(child: ChildProcess | null, exited: Promise<unknown>): Promise<void> {
  if (child && child.exitCode === null) child.kill("SIGTERM");
  await Promise.race([exited, sleep(8000)]);
}

/** The agent's health endpoint status (200 connected, 503 not), or null when it does not answer within 2 s. */
export async function agentHealth(host: string, port: number): Promise<number | null> {
  try {
    const r = await fetch(`http://${host}:${port}/`, { signal: AbortSignal.timeout(2000) });
    await r.arrayBuffer();
    return r.status;
  } catch {
    return null;
  }
}

/** One query on the console's embedded PostgreSQL (its password from the data directory's secrets.json). */
export async function consoleQuery<T = Record<string, unknown>>(server: RunningServer, sql: string, params: unknown[] = []): Promise<T[]> {
  const secrets = JSON.parse(readFileSync(join(server.dataDir, "secrets.json"), "utf8")) as { embeddedDbPassword: string };
  const c = new pg.Client({ host: "127.0.0.1", port: server.dbPort!, user: "defguard", password: secrets.embeddedDbPassword, database: "defguard" });
  await c.connect();
  try {
    return (await c.query(sql, params)).rows as T[];
  } finally {
    await c.end();
  }
}
