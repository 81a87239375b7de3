/**
 * Network namespaces for the tunnel tests: create them, run commands inside, and tear
 * everything down again — by PID and by name, only what this run created — from afterAll
 * and from process exit handlers alike (cleanupSync is synchronous for `exit`).
 *
 * Only documentation address ranges are used (192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24).
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { killTree, type RunningServer } from "../setup/server";

export interface Sh {
  stdout: string;
  stderr: string;
  code: number;
}

/** Run a command; resolves with its output and exit code (never rejects for a non-zero exit). */
export function sh(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string } = {}): Promise<Sh> {
  return new Promise((resolve) => {
    const child = execFile(
      cmd,
      args,
      { env: opts.env ?? process.env, timeout: opts.timeoutMs ?? 30_000, maxBuffer: 64 * 1024 * 1024, encoding: "utf8" },
      (err, stdout, stderr) => {
        const code = err ? (typeof (err as NodeJS.ErrnoException).code === "number" ? Number((err as NodeJS.ErrnoException).code) : 1) : 0;
        resolve({ stdout, stderr: stderr || (err && !stdout ? err.message : ""), code });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** Like sh, but throws with the command's stderr on failure. */
export async function must(cmd: string, args: string[], opts: Parameters<typeof sh>[2] = {}): Promise<string> {
  const r = await sh(cmd, args, opts);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.code}): ${r.stderr.trim() || r.stdout.trim()}`);
  return r.stdout;
}

export function hasCommand(name: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${name}`], { stdio: "ignore" }).status === 0;
}

/** `ping` (iputils, what CI installs) or busybox's applet. */
export function pingCommand(): string[] | null {
  if (hasCommand("ping")) return ["ping"];
  if (hasCommand("busybox") && spawnSync("busybox", ["ping", "-c", "1", "-W", "1", "127.0.0.1"], { stdio: "ignore" }).status === 0) return ["busybox", "ping"];
  return null;
}

/** Why the namespace tests cannot run here, or null. */
export function netTestsUnavailable(): string | null {
  if (process.env.DEFGUARD_NET_TESTS === "0") return "disabled by DEFGUARD_NET_TESTS=0";
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  if (typeof process.getuid === "function" && process.getuid() !== 0) return "not root (network namespaces need root)";
  if (!existsSync("/dev/net/tun")) return "no /dev/net/tun (wireguard-go needs it)";
  const missing = ["wireguard-go", "wg", "wg-quick", "ip"].filter((c) => !hasCommand(c));
  if (missing.length) return `missing command(s): ${missing.join(", ")} (apt-get install wireguard-tools wireguard-go iproute2)`;
  if (!pingCommand()) return "no ping (apt-get install iputils-ping)";
  // The root namespace must not already use the ranges the test puts there (198.51.100.252/30)
  // or routes into the namespaces (198.51.100.0/24, 203.0.113.0/24).
  const addrs = spawnSync("ip", ["-o", "address", "show"], { encoding: "utf8" }).stdout ?? "";
  const clash = addrs.split("\n").find((l) => / inet (198\.51\.100|203\.0\.113)\./.test(l));
  if (clash) return `the root namespace already has an address in 198.51.100.0/24 or 203.0.113.0/24 (${clash.trim().split(/\s+/).slice(1, 4).join(" ")}): another net test running?`;
  const probe = `dgt-probe-${process.pid}`;
  const add = spawnSync("ip", ["netns", "add", probe], { encoding: "utf8" });
  if (add.status !== 0) return `cannot create network namespaces: ${(add.stderr || "").trim()}`;
  spawnSync("ip", ["netns", "del", probe]);
  return null;
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Everything one test run creates, so that it can all be removed. */
export class Resources {
  readonly namespaces: string[] = [];
  /** Links created in the root namespace. */
  readonly rootLinks: string[] = [];
  readonly pids = new Set<number>();
  readonly dirs: string[] = [];
  /** Synchronous cleanups run first (e.g. stopping the console and its PostgreSQL by PID). */
  readonly extra: (() => void)[] = [];
  private done = false;

  /** PIDs of the processes living in one of our namespaces. */
  nsPids(ns: string): number[] {
    const r = spawnSync("ip", ["netns", "pids", ns], { encoding: "utf8" });
    return r.status === 0 ? r.stdout.split(/\s+/).filter(Boolean).map(Number) : [];
  }

  /** Synchronous: safe in `exit` handlers. Idempotent. */
  cleanupSync(): string[] {
    if (this.done) return [];
    this.done = true;
    const notes: string[] = [];
    for (const f of this.extra) {
      try {
        f();
      } catch (e) {
        notes.push(`cleanup step failed: ${(e as Error).message}`);
      }
    }
    const victims = new Set<number>(this.pids);
    for (const ns of this.namespaces) for (const p of this.nsPids(ns)) victims.add(p);
    for (const p of victims) {
      try {
        process.kill(p, "SIGTERM");
      } catch {
        // gone
      }
    }
    const deadline = Date.now() + 3000;
    while ([...victims].some(pidAlive) && Date.now() < deadline) spawnSync("sleep", ["0.05"]);
    for (const p of victims) {
      if (!pidAlive(p)) continue;
      notes.push(`killed ${p} with SIGKILL`);
      try {
        process.kill(p, "SIGKILL");
      } catch {
        // gone
      }
    }
    for (const ns of this.namespaces) {
      const r = spawnSync("ip", ["netns", "del", ns], { encoding: "utf8" });
      if (r.status !== 0 && !/No such file/.test(r.stderr)) notes.push(`ip netns del ${ns}: ${r.stderr.trim()}`);
    }
    for (const l of this.rootLinks) {
      const exists = spawnSync("ip", ["link", "show", "dev", l], { stdio: "ignore" }).status === 0;
      if (exists) spawnSync("ip", ["link", "del", "dev", l]);
    }
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
    return notes;
  }
}

/**
 * Create network namespaces with their loopback up, each registered in `res` (for clean-up)
 * right after it exists, in the order given.
 */
export async function addNamespaces(res: Resources, names: string[]): Promise<void> {
  for (const ns of names) {
    await must("ip", ["netns", "add", ns]);
    res.namespaces.push(ns);
    await must("ip", ["-n", ns, "link", "set", "lo", "up"]);
  }
}

/** Run a command inside a namespace. */
export function nsExec(ns: string, cmd: string, args: string[], opts: Parameters<typeof sh>[2] = {}): Promise<Sh> {
  return sh("ip", ["netns", "exec", ns, cmd, ...args], opts);
}

export function nsMust(ns: string, cmd: string, args: string[], opts: Parameters<typeof sh>[2] = {}): Promise<string> {
  return must("ip", ["netns", "exec", ns, cmd, ...args], opts);
}

export interface VethEnd {
  /** null: stays in the root namespace. */
  ns: string | null;
  name: string;
  cidr: string;
}

/** A veth pair between two namespaces (or one end in the root namespace), addressed and up. */
export async function veth(res: Resources, a: VethEnd, b: VethEnd, tmpA: string, tmpB: string): Promise<void> {
  await must("ip", ["link", "add", tmpA, "type", "veth", "peer", "name", tmpB]);
  res.rootLinks.push(tmpA, tmpB);
  for (const [end, tmp] of [
    [a, tmpA],
    [b, tmpB],
  ] as const) {
    if (end.ns) {
      await must("ip", ["link", "set", tmp, "netns", end.ns]);
      await must("ip", ["-n", end.ns, "link", "set", tmp, "name", end.name]);
      await must("ip", ["-n", end.ns, "address", "add", end.cidr, "dev", end.name]);
      await must("ip", ["-n", end.ns, "link", "set", end.name, "up"]);
    } else {
      if (tmp !== end.name) throw new Error("a root-namespace end keeps its name");
      await must("ip", ["address", "add", end.cidr, "dev", end.name]);
      await must("ip", ["link", "set", end.name, "up"]);
    }
  }
}

/** `wg show <if> dump` in a namespace, as pubkey → {handshake, rx, tx, allowedIps}. */
export async function gwPeers(ns: string, ifname: string): Promise<Map<string, { handshake: number; rx: number; tx: number; allowedIps: string }>> {
  const out = await nsMust(ns, "wg", ["show", ifname, "dump"]);
  const peers = new Map<string, { handshake: number; rx: number; tx: number; allowedIps: string }>();
  for (const line of out.split("\n").slice(1)) {
    const f = line.split("\t");
    if (f.length < 8) continue;
    peers.set(f[0], { allowedIps: f[3], handshake: Number(f[4]), rx: Number(f[5]), tx: Number(f[6]) });
  }
  return peers;
}

/** PIDs in a namespace whose command line is `wireguard-go ... <ifname>`. */
export function wireguardGoPids(res: Resources, ns: string, ifname: string): number[] {
  return res.nsPids(ns).filter((p) => {
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0").filter(Boolean);
      return /wireguard-go$/.test(argv[0] ?? "") && argv.includes(ifname);
    } catch {
      return false;
    }
  });
}

export async function ifindex(ns: string, ifname: string): Promise<number | null> {
  const r = await sh("ip", ["-n", ns, "-j", "link", "show", "dev", ifname]);
  if (r.code !== 0) return null;
  return (JSON.parse(r.stdout) as { ifindex: number }[])[0]?.ifindex ?? null;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 10_000, everyMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

/** Exit-handler path: SIGTERM the console (it stops its PostgreSQL), then kill what is left of its tree. */
export function stopConsoleSync(server: RunningServer | null): void {
  const pid = server?.pid;
  if (!pid || !pidAlive(pid)) return;
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + 12_000;
  while (pidAlive(pid) && Date.now() < deadline) spawnSync("sleep", ["0.1"]);
  if (pidAlive(pid)) killTree(pid, "SIGKILL");
}
