/**
 * The console's gateway side in-process for the suites that time a change until our agent
 * acknowledges it (bulk, acl-e2e): an embedded PostgreSQL with the migrations applied, this
 * process's NOTIFY-fed hub and gRPC server, and (root only) a network namespace joined to the
 * root namespace by one /30 in a documentation range, where our agent (gateway/index.ts) runs
 * with wireguard-go, one per location, as the network tests start it (e2e/net).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import type pg from "pg";
import { makeTempDir } from "../../e2e/setup/server";
import { must, netTestsUnavailable, Resources, veth } from "../../e2e/net/netns";
import type { SuiteContext } from "./types";

export const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

export interface BenchConsole {
  dir: string;
  res: Resources;
  /** The namespace for the agents (null when `netSkip` says why there is none). */
  ns: string | null;
  /** A short random suffix for names of interfaces and links. */
  sfx: string;
  /** Why our agent cannot run here, or null. */
  netSkip: string | null;
  pool: pg.Pool;
  /** Where the gRPC server listens: the root end of the /30 (or loopback without a namespace). */
  grpcHost: string;
  /** Starts the hub and the gRPC server (after seeding, so the hub's first reads see the data). */
  serve(): Promise<number>;
  token(locationId: number): string;
  currentRevision(locationId: number): Promise<number>;
  stop(): Promise<void>;
}

export interface ConsoleOptions {
  /** Name prefix of the namespace, links and temporary directory ("bulk" → dgt-bulk-1a2b). */
  tag: string;
  /** The /30 between the root namespace (console) and the agents' namespace: root end, namespace end. */
  link: [string, string];
  /** A reason to leave the agent out (e.g. an environment knob), or null to decide here. */
  skip?: string | null;
}

export async function startBenchConsole(ctx: SuiteContext, opts: ConsoleOptions): Promise<BenchConsole> {
  const dir = makeTempDir(`dgt-bench-${opts.tag}-`);
  const netSkip = opts.skip ?? netTestsUnavailable();
  const res = new Resources();
  const sfx = randomBytes(2).toString("hex");
  const onExit = () => res.cleanupSync();
  process.once("exit", onExit);
  process.env.DEFGUARD_ENCRYPTION_KEY ??= randomBytes(32).toString("hex");
  const { SECRET_NAMES, secret } = await import("../../lib/config");
  for (const name of Object.values(SECRET_NAMES)) process.env[name] ??= randomBytes(32).toString("base64url");
  const { startEmbeddedPostgres, freePort } = await import("../../lib/db/embedded");
  const pgdb = await startEmbeddedPostgres(join(dir, "pg"), randomBytes(16).toString("hex"), { log: () => {} });
  let stopServer: (() => Promise<void>) | null = null;
  const cleanup = async () => {
    await stopServer?.().catch(() => {});
    await pgdb.stop();
    for (const note of res.cleanupSync()) ctx.log(`[${opts.tag}] ${note}`);
    process.removeListener("exit", onExit);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    let ns: string | null = null;
    let grpcHost = "127.0.0.1";
    if (netSkip) ctx.log(`[${opts.tag}] skipping the part with our agent: ${netSkip}`);
    else {
      ns = `dgt-${opts.tag}-${sfx}`;
      await must("ip", ["netns", "add", ns]);
      res.namespaces.push(ns);
      await must("ip", ["-n", ns, "link", "set", "lo", "up"]);
      const rootLink = `dgt-${opts.tag.slice(0, 3)}-${sfx}`;
      await veth(res, { ns: null, name: rootLink, cidr: `${opts.link[0]}/30` }, { ns, name: "to-root", cidr: `${opts.link[1]}/30` }, rootLink, `dgt-${opts.tag.slice(0, 3)}0-${sfx}`);
      grpcHost = opts.link[0];
    }
    process.env.DATABASE_URL = pgdb.url;
    const { runMigrations } = await import("../../lib/db/migrate");
    await runMigrations(pgdb.url);
    const { getPool, closeDb } = await import("../../lib/db");
    const { startHub, stopHub } = await import("../../lib/gateways/hub");
    const { startGrpcServer } = await import("../../lib/grpc/server");
    const { gatewayToken } = await import("../../lib/gateways/jwt");
    const { currentRevision } = await import("../../lib/gateways/sync");
    stopServer = async () => {
      await stopHub();
      await closeDb();
    };
    return {
      dir,
      res,
      ns,
      sfx,
      netSkip,
      pool: getPool(),
      grpcHost,
      async serve() {
        await startHub();
        const server = await startGrpcServer(grpcHost, await freePort());
        stopServer = async () => {
          await server.stop();
          await stopHub();
          await closeDb();
        };
        return server.port;
      },
      token: (loc) => gatewayToken(loc, secret("gatewaySecret")),
      currentRevision: (loc) => currentRevision(loc),
      stop: cleanup,
    };
  } catch (err) {
    await cleanup();
    throw err;
  }
}

export interface Agent {
  loc: number;
  ifname: string;
  hostname: string;
  /** Its stdout and stderr. */
  log: string;
  child: ChildProcess;
  exit: Promise<void>;
}

/**
 * Our agent (`entry`, default gateway/index.ts) for one location in the console's namespace,
 * with a wireguard-go interface `ifname`, dialling the gRPC server at `grpcHost:grpcPort`.
 */
export function startAgent(ctx: SuiteContext, c: BenchConsole, o: { loc: number; ifname: string; hostname: string; grpcPort: number; entry?: string }): Agent {
  if (!c.ns) throw new Error("no namespace for the agent");
  const log = join(c.dir, `agent-${o.hostname}.log`);
  const fd = openSync(log, "a");
  const child = spawn("ip", ["netns", "exec", c.ns, process.execPath, "--import", "tsx", o.entry ?? "gateway/index.ts"], {
    cwd: ctx.root,
    stdio: ["ignore", fd, fd],
    env: {
      ...process.env,
      DEFGUARD_TOKEN: c.token(o.loc),
      DEFGUARD_GRPC_URL: `http://${c.grpcHost}:${o.grpcPort}`,
      DEFGUARD_IFNAME: o.ifname,
      DEFGUARD_USERSPACE: "1",
      DEFGUARD_HOSTNAME: o.hostname,
      DEFGUARD_TEARDOWN_ON_EXIT: "1",
    },
  });
  closeSync(fd);
  c.res.pids.add(child.pid!);
  return { loc: o.loc, ifname: o.ifname, hostname: o.hostname, log, child, exit: new Promise((r) => child.on("exit", () => r())) };
}

/** The last lines of the agents' logs, for error messages. */
export function agentLogTail(agents: Agent[]): string {
  return agents.map((g) => `${g.hostname}:\n${readFileSync(g.log, "utf8").slice(-1500)}`).join("\n");
}

/** Each agent's acknowledged revision (gateway_sync.applied_revision; -1 before the first). */
export async function appliedRevisions(pool: pg.Pool, agents: Agent[]): Promise<Map<string, number>> {
  const r = await pool.query<{ hostname: string; rev: string | null }>(
    `select g.hostname, s.applied_revision rev from gateways g left join gateway_sync s on s.gateway_id = g.id where g.location_id = any($1::int[])`,
    [[...new Set(agents.map((g) => g.loc))]],
  );
  return new Map(r.rows.map((x) => [x.hostname, x.rev === null ? -1 : Number(x.rev)]));
}

/**
 * Polls (every `everyMs`) until every agent has acknowledged at least `want[its location]`;
 * returns performance.now() of the poll that saw it. Throws after `timeoutMs` or when an agent exits.
 */
export async function untilAcknowledged(pool: pg.Pool, agents: Agent[], want: Record<number, number>, timeoutMs: number, everyMs: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const got = await appliedRevisions(pool, agents);
    if (agents.every((g) => (got.get(g.hostname) ?? -1) >= want[g.loc])) return performance.now();
    for (const g of agents) if (g.child.exitCode !== null) throw new Error(`agent ${g.hostname} exited:\n${agentLogTail(agents)}`);
    if (performance.now() - t0 > timeoutMs) throw new Error(`no acknowledgement within ${timeoutMs / 1000} s:\n${agentLogTail(agents)}`);
    await sleep(everyMs);
  }
}

/** Stops the agents (SIGTERM; they tear their interface down) and waits up to 10 s for them. */
export async function stopAgents(agents: Agent[]): Promise<void> {
  for (const g of agents) if (g.child.exitCode === null) g.child.kill("SIGTERM");
  await Promise.race([Promise.all(agents.map((g) => g.exit)), sleep(10_000)]);
}

/** CPU time of a process in ms (user + system, and of its reaped children), from /proc (10 ms ticks). */
export function cpuMs(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8");
    const x = f.slice(f.lastIndexOf(")") + 2).split(" ").map(Number);
    return (x[11] + x[12] + x[13] + x[14]) * 10;
  } catch {
    return NaN;
  }
}
