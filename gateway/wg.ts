/**
 * The WireGuard interface through the standard tools: `wg`, `ip`, `wireguard-go` (userspace)
 * and `nft`. Every change is a command whose arguments are built from reconcile ops; the
 * interface itself (`wg show <if> dump`, `ip -j address`) is the source of truth that the
 * agent reads back after a (re)connect or a failed command.
 *
 * `parseDump` and `opsToCommands` are pure (unit-tested); the rest runs processes.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, closeSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalAddress, canonicalRoute } from "../lib/net/ip";
import { normalizePsk, type InterfaceState, type Op, type PeerState } from "./reconcile";

export type Log = (level: "debug" | "info" | "warn" | "error", msg: string) => void;

export class CommandError extends Error {
  constructor(
    readonly command: string,
    readonly code: number | string | null,
    readonly stderr: string,
  ) {
    super(`${command} failed (${code}): ${stderr.trim().split("\n").slice(-3).join(" | ") || "no output"}`);
    this.name = "CommandError";
  }
}

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** Run a command (no shell); reject with CommandError on a non-zero exit. */
export function run(cmd: string, args: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      { maxBuffer: 256 * 1024 * 1024, timeout: opts.timeoutMs ?? 60_000, encoding: "utf8" },
      (err, stdout, stderr) => {
        if (err) {
          const e = err as NodeJS.ErrnoException & { code?: number | string };
          reject(new CommandError([cmd, ...args.map(redactArg)].join(" ").slice(0, 300), e.code ?? null, stderr || e.message));
        } else resolve({ stdout, stderr });
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** Keys never go on the command line (files are used), but keep logs short. */
const redactArg = (a: string) => (a.length > 120 ? `${a.slice(0, 117)}...` : a);

/** Run a hook with `sh -c`; never throws (a failing hook is logged, not fatal). */
export function runHook(name: string, command: string | null, log: Log, env: Record<string, string> = {}): Promise<void> {
  if (!command) return Promise.resolve();
  return new Promise((resolve) => {
    log("info", `running ${name}: ${command}`);
    const child = spawn("sh", ["-c", command], { stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...env } });
    child.on("error", (err) => {
      log("error", `${name} could not start: ${err.message}`);
      resolve();
    });
    child.on("exit", (code, signal) => {
      if (code !== 0) log("warn", `${name} exited with ${signal ?? `code ${code}`}`);
      resolve();
    });
  });
}

// -----------------------------------------------------------------------------------------
// `wg show <if> dump`

export interface DumpPeer {
  pubkey: string;
  presharedKey: string | null;
  endpoint: string | null;
  allowedIps: string[];
  /** Unix seconds; 0: never. */
  latestHandshake: number;
  /** Bytes received from the peer (what the client uploaded). */
  rx: number;
  /** Bytes sent to the peer. */
  tx: number;
  /** Seconds; 0: off. */
  keepalive: number;
}

export interface Dump {
  privateKey: string | null;
  publicKey: string | null;
  listenPort: number;
  fwmark: number | null;
  peers: DumpPeer[];
}

const none = (v: string | undefined) => (v === undefined || v === "(none)" || v === "" ? null : v);

/** Parse `wg show <if> dump`: the interface line, then one tab-separated line per peer. */
export function parseDump(text: string): Dump {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  if (!lines.length) throw new Error("empty wg dump");
  const head = lines[0].split("\t");
  if (head.length < 4) throw new Error(`unexpected wg dump interface line: ${JSON.stringify(lines[0].slice(0, 80))}`);
  const peers: DumpPeer[] = [];
  for (const line of lines.slice(1)) {
    const f = line.split("\t");
    if (f.length < 8) throw new Error(`unexpected wg dump peer line: ${JSON.stringify(line.slice(0, 80))}`);
    const ips = none(f[3]);
    peers.push({
      pubkey: f[0],
      presharedKey: normalizePsk(none(f[1])),
      endpoint: none(f[2]),
      allowedIps: ips ? ips.split(",").map((s) => s.trim()).filter(Boolean) : [],
      latestHandshake: Number(f[4]) || 0,
      rx: Number(f[5]) || 0,
      tx: Number(f[6]) || 0,
      keepalive: f[7] === "off" ? 0 : Number(f[7]) || 0,
    });
  }
  return {
    privateKey: none(head[0]),
    publicKey: none(head[1]),
    listenPort: Number(head[2]) || 0,
    fwmark: head[3] === "off" ? null : Number(head[3]) || null,
    peers,
  };
}

export function dumpPeerState(p: DumpPeer): PeerState {
  return {
    pubkey: p.pubkey,
    allowedIps: [...new Set(p.allowedIps.map(canonicalRoute))].sort(),
    presharedKey: p.presharedKey,
    keepalive: p.keepalive,
  };
}

export function stateFromDump(dump: Dump, addresses: string[]): InterfaceState {
  const peers = new Map<string, PeerState>();
  for (const p of dump.peers) peers.set(p.pubkey, dumpPeerState(p));
  return {
    privateKey: dump.privateKey,
    listenPort: dump.listenPort || null,
    addresses: [...new Set(addresses.map(canonicalAddress))].sort(),
    peers,
  };
}

/** Global addresses from `ip -j address show dev <if>` (link-local IPv6 is the kernel's, not ours). */
export function parseIpAddrJson(text: string): { ifindex: number | null; addresses: string[] } {
  const data = JSON.parse(text || "[]") as { ifindex?: number; addr_info?: { local?: string; prefixlen?: number; scope?: string }[] }[];
  const link = data[0];
  if (!link) return { ifindex: null, addresses: [] };
  const addresses = (link.addr_info ?? [])
    .filter((a) => a.local && a.prefixlen !== undefined && a.scope !== "link" && a.scope !== "host")
    .map((a) => `${a.local}/${a.prefixlen}`);
  return { ifindex: link.ifindex ?? null, addresses };
}

// -----------------------------------------------------------------------------------------
// Ops → commands

export interface Command {
  cmd: "wg" | "ip";
  args: string[];
  /** Key files to write (path → base64 key) before running, removed after. */
  files: Map<string, string>;
}

/**
 * Argument bytes per `wg set` invocation. A whole batch (a full configuration, 5,000 peers moved
 * by one bulk action) goes to the interface in as few commands as possible: one `wg set` of
 * 5,000 peers is one configuration transaction for wireguard-go or the kernel and costs a
 * fraction of 20 `wg set`s of 250 peers each (process starts and 20 transactions). The budget
 * keeps the command line well below Linux's ARG_MAX (2 MiB with the default 8 MiB stack, shared
 * with the environment): ~10,000 peers with one allowed IP each fit one command.
 */
export const ARG_BYTES_PER_COMMAND = 1024 * 1024;

/**
 * Commands for ops, in op order: one `wg set` for key/port, `ip address` per address op,
 * then the peer clauses in `wg set` commands of at most ARG_BYTES_PER_COMMAND argument bytes
 * each (one command for most batches). `keyFile(n)` names key files inside the agent's private
 * temp directory.
 */
export function opsToCommands(ifname: string, ops: Op[], keyFile: (n: number) => string, argBytes = ARG_BYTES_PER_COMMAND): Command[] {
  const out: Command[] = [];
  let fileNo = 0;
  const iface: Command = { cmd: "wg", args: ["set", ifname], files: new Map() };
  for (const o of ops) {
    if (o.op === "set-listen-port") iface.args.push("listen-port", String(o.port));
    if (o.op === "set-private-key") {
      const f = keyFile(fileNo++);
      iface.files.set(f, o.privateKey);
      iface.args.push("private-key", f);
    }
  }
  if (iface.args.length > 2) out.push(iface);
  for (const o of ops) {
    if (o.op === "add-address") out.push({ cmd: "ip", args: ["address", "add", o.address, "dev", ifname], files: new Map() });
    if (o.op === "del-address") out.push({ cmd: "ip", args: ["address", "del", o.address, "dev", ifname], files: new Map() });
  }
  let cur: Command | null = null;
  let curBytes = 0;
  for (const o of ops) {
    if (o.op !== "remove-peer" && o.op !== "upsert-peer") continue;
    // This peer's clause, then into the current command unless that would pass the budget.
    const clause: string[] = [];
    const files = new Map<string, string>();
    if (o.op === "remove-peer") clause.push("peer", o.pubkey, "remove");
    else {
      const p = o.peer;
      clause.push("peer", p.pubkey);
      if (p.presharedKey) {
        const f = keyFile(fileNo++);
        files.set(f, p.presharedKey);
        clause.push("preshared-key", f);
      } else if (o.existed) {
        // An empty key file removes the preshared key.
        clause.push("preshared-key", "/dev/null");
      }
      if (p.keepalive > 0 || o.existed) clause.push("persistent-keepalive", p.keepalive > 0 ? String(p.keepalive) : "off");
      // `allowed-ips` replaces the whole list (an empty string clears it).
      clause.push("allowed-ips", p.allowedIps.join(","));
    }
    const bytes = clause.reduce((n, a) => n + Buffer.byteLength(a) + 1, 0);
    if (!cur || (curBytes + bytes > argBytes && cur.args.length > 2)) {
      cur = { cmd: "wg", args: ["set", ifname], files: new Map() };
      curBytes = ifname.length + 8;
      out.push(cur);
    }
    cur.args.push(...clause);
    for (const [f, k] of files) cur.files.set(f, k);
    curBytes += bytes;
  }
  return out;
}

// -----------------------------------------------------------------------------------------
// The interface

export interface WgOptions {
  ifname: string;
  userspace: boolean;
  wireguardGo: string;
  log: Log;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Lines wireguard-go prints on a server all the time (keep-alive to a peer that never connected). */
const NOISE = /no known endpoint for peer|^\s*[│┌└]/;

/** What the agent needs from an interface (WgInterface; tests use an in-memory one). */
export interface WgDevice {
  readonly ifname: string;
  readonly pid: number | null;
  onUnexpectedExit: ((why: string) => void) | null;
  exists(): Promise<boolean>;
  create(): Promise<void>;
  destroy(): Promise<void>;
  /** Stop watching the interface but leave it (and our wireguard-go) running. */
  release(): void;
  setUp(): Promise<void>;
  dump(): Promise<Dump>;
  readState(): Promise<InterfaceState>;
  execute(ops: Op[]): Promise<void>;
  dispose(): void;
}

export class WgInterface implements WgDevice {
  readonly ifname: string;
  private readonly userspace: boolean;
  private readonly wireguardGo: string;
  private readonly log: Log;
  private readonly keyDir: string;
  private child: ChildProcess | null = null;
  private childExited: Promise<void> | null = null;
  /** Called when wireguard-go exits while we did not ask it to. */
  onUnexpectedExit: ((why: string) => void) | null = null;
  private stopping = false;
  private followLog: NodeJS.Timeout | null = null;

  constructor(opts: WgOptions) {
    this.ifname = opts.ifname;
    this.userspace = opts.userspace;
    this.wireguardGo = opts.wireguardGo;
    this.log = opts.log;
    this.keyDir = mkdtempSync(join(tmpdir(), "defguard-gw-"));
    chmodSync(this.keyDir, 0o700);
  }

  /** PID of the wireguard-go this agent started (null in kernel mode or for an adopted interface). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  async exists(): Promise<boolean> {
    try {
      await run("wg", ["show", this.ifname, "listen-port"], { timeoutMs: 5000 });
      return true;
    } catch {
      return false;
    }
  }

  /** Create the link (kernel module or wireguard-go in the foreground) and wait until `wg` can talk to it. */
  async create(): Promise<void> {
    if (!this.userspace) {
      try {
        await run("ip", ["link", "add", "dev", this.ifname, "type", "wireguard"]);
      } catch (e) {
        if (e instanceof CommandError && /Unknown device type|not supported/i.test(e.stderr)) {
          throw new Error(`${e.message} — no WireGuard kernel module here: set DEFGUARD_USERSPACE=1 to use wireguard-go`);
        }
        throw e;
      }
      return;
    }
    this.stopping = false;
    // wireguard-go must outlive the agent (a restart or upgrade adopts the running interface),
    // so it gets its own session and writes to a file, not to a pipe of ours: Go programs die
    // of SIGPIPE when they write to a closed stdout. The agent follows the file while it runs.
    const logPath = join(this.keyDir, "wireguard-go.log");
    const fd = openSync(logPath, "a", 0o600);
    const child = spawn(this.wireguardGo, ["-f", this.ifname], {
      stdio: ["ignore", fd, fd],
      detached: true,
      env: {
        ...process.env,
        LOG_LEVEL: process.env.DEFGUARD_WIREGUARD_GO_LOG_LEVEL || "error",
        WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1",
      },
    });
    closeSync(fd);
    this.child = child;
    let exitInfo: string | null = null;
    const output = () => {
      try {
        return readFileSync(logPath, "utf8").slice(-4000);
      } catch {
        return "";
      }
    };
    let seen = 0;
    this.followLog = setInterval(() => {
      let text = "";
      try {
        const size = statSync(logPath).size;
        if (size <= seen) return;
        const buf = Buffer.alloc(Math.min(size - seen, 64 * 1024));
        const rfd = openSync(logPath, "r");
        try {
          readSync(rfd, buf, 0, buf.length, seen);
        } finally {
          closeSync(rfd);
        }
        seen += buf.length;
        text = buf.toString("utf8");
      } catch {
        return;
      }
      for (const line of text.split("\n")) if (line.trim() && !NOISE.test(line)) this.log("info", `wireguard-go: ${line.trim()}`);
    }, 1000);
    this.followLog.unref();
    this.childExited = new Promise<void>((resolve) => {
      child.on("exit", (code, signal) => {
        exitInfo = signal ?? `code ${code}`;
        if (this.child === child) this.child = null;
        if (!this.stopping) this.onUnexpectedExit?.(`wireguard-go exited (${exitInfo})`);
        resolve();
      });
    });
    child.on("error", (err) => {
      exitInfo = err.message;
    });
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (exitInfo) throw new Error(`wireguard-go ${this.ifname} did not start (${exitInfo}): ${output().trim().slice(-500)}`);
      if (await this.exists()) break;
      if (Date.now() > deadline) {
        await this.destroy();
        throw new Error(`wireguard-go ${this.ifname} did not create the interface within 10 s`);
      }
      await sleep(20);
    }
    this.log("info", `wireguard-go started for ${this.ifname} (pid ${child.pid})`);
  }

  /** Remove the interface: stop our wireguard-go by PID, delete the link if it is still there. */
  async destroy(): Promise<void> {
    this.stopping = true;
    if (this.followLog) clearInterval(this.followLog);
    this.followLog = null;
    const child = this.child;
    if (child?.pid) {
      child.kill("SIGTERM");
      const done = await Promise.race([this.childExited!.then(() => true), sleep(3000).then(() => false)]);
      if (!done) {
        child.kill("SIGKILL");
        await this.childExited;
      }
    }
    this.child = null;
    try {
      await run("ip", ["link", "del", "dev", this.ifname], { timeoutMs: 5000 });
    } catch {
      // Already gone (wireguard-go removes its tun device on exit).
    }
  }

  async setUp(): Promise<void> {
    await run("ip", ["link", "set", "dev", this.ifname, "up"]);
  }

  async dump(): Promise<Dump> {
    return parseDump((await run("wg", ["show", this.ifname, "dump"])).stdout);
  }

  async link(): Promise<{ ifindex: number | null; addresses: string[] }> {
    return parseIpAddrJson((await run("ip", ["-j", "address", "show", "dev", this.ifname])).stdout);
  }

  /** The interface as it is now. */
  async readState(): Promise<InterfaceState> {
    const [dump, link] = await Promise.all([this.dump(), this.link()]);
    return stateFromDump(dump, link.addresses);
  }

  /** Run the commands for ops, in order. Key files live 0600 in a 0700 directory only while a command runs. */
  async execute(ops: Op[]): Promise<void> {
    let n = 0;
    const stamp = `${process.pid}-${Date.now()}`;
    for (const c of opsToCommands(this.ifname, ops, () => join(this.keyDir, `key-${stamp}-${n++}`))) {
      try {
        for (const [path, key] of c.files) writeFileSync(path, `${key}\n`, { mode: 0o600 });
        await run(c.cmd, c.args);
      } finally {
        for (const path of c.files.keys()) rmSync(path, { force: true });
      }
    }
  }

  /**
   * Leave the interface running when the agent exits: our wireguard-go (if we started it) is
   * let go, still in its own session, and keeps the tunnels up until the next agent adopts it.
   */
  release(): void {
    this.stopping = true;
    if (this.followLog) clearInterval(this.followLog);
    this.followLog = null;
    this.child?.unref();
    if (this.child?.pid) this.log("info", `leaving wireguard-go (pid ${this.child.pid}) and ${this.ifname} running`);
    this.child = null;
  }

  /** Remove the private temp directory (call once, at exit). */
  dispose(): void {
    if (this.followLog) clearInterval(this.followLog);
    this.followLog = null;
    // A released wireguard-go keeps its (now unlinked) log file open; at its default log
    // level it writes errors only, and the next agent starts a log of its own if it must.
    rmSync(this.keyDir, { recursive: true, force: true });
  }
}

// -----------------------------------------------------------------------------------------
// nftables

/** Apply a whole nft script atomically (`nft -f -`: all or nothing). */
export async function nftApply(script: string): Promise<void> {
  await run("nft", ["-f", "-"], { input: script });
}

/** Delete a table; true when it existed. */
export async function nftDeleteTable(family: string, table: string): Promise<boolean> {
  try {
    await run("nft", ["delete", "table", family, table]);
    return true;
  } catch (e) {
    if (e instanceof CommandError && /No such file|does not exist/i.test(e.stderr)) return false;
    throw e;
  }
}

/**
 * `nft list table <family> <table>` (with `handles`: `nft -a`, every object followed by
 * `# handle N`), or null when the table does not exist.
 */
export async function nftListTable(family: string, table: string, handles = false): Promise<string | null> {
  try {
    return (await run("nft", [...(handles ? ["-a"] : []), "list", "table", family, table])).stdout;
  } catch (e) {
    if (e instanceof CommandError && /No such file|does not exist/i.test(e.stderr)) return null;
    throw e;
  }
}
