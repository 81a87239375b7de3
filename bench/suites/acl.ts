/**
 * The ACL compiler at scale, in-process (lib/acl/compile.ts, the function whose output the
 * gateways get): one location with 5,000 users, 10,000 devices (an IPv4 and an IPv6 address
 * each), 100 groups of 50 users, 100 aliases and 1,000 applied rules of mixed kinds (allow all
 * users minus some, groups minus users, user lists, network devices, component and destination
 * aliases). Reports compile time (p50/max over several runs), emitted firewall rules and set
 * elements; then what the gateway agent does with that result: the nft script it builds
 * (gateway/firewall.ts) and `nft -f` applying it in a private network namespace (first load
 * and whole-table replacements), and one rule change end to end on this machine as the agent
 * now applies it after the previous table is loaded: compile, the agent's model of the table
 * (rules unchanged since the previous config reuse their parsed fragments),
 * the incremental script (gateway/firewall.ts: new sets, the changed rules by handle, unused
 * sets deleted) and `nft -f` of that script; without the gRPC hop, which the network test
 * measures. For comparison, the same change through the whole-table path (the agent's first
 * apply and fallback). Targets: compile < 500 ms, apply < 1 s. The nft rows need root and nft
 * and are skipped with a printed reason otherwise. Nothing here asserts anything about time.
 */
import { spawn, spawnSync } from "node:child_process";
import { performance } from "node:perf_hooks";
import { buildFirewall, firewallModel, firewallTableName, forwardHandles, incrementalScript, type FirewallModel, type FirewallModelCache } from "../../gateway/firewall";
import { canonicalFirewall } from "../../gateway/proto";
import { compileFirewall, type CompileAlias, type CompileDevice, type CompileInput, type CompileRule } from "../../lib/acl/compile";
import { formatIp } from "../../lib/net/ip";
import { max, ms, percentile } from "../lib/stats";
import type { Row, Suite } from "../lib/types";

const USERS = Number(process.env.BENCH_ACL_USERS || 5000);
const DEVICES = Number(process.env.BENCH_ACL_DEVICES || 10_000);
const RULES = Number(process.env.BENCH_ACL_RULES || 1000);
const RUNS = Number(process.env.BENCH_ACL_RUNS || 7);
const APPLY_RUNS = Number(process.env.BENCH_ACL_APPLY_RUNS || 5);

/** Why `nft -f` cannot be measured here, or null. */
function nftUnavailable(): string | null {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  if (typeof process.getuid === "function" && process.getuid() !== 0) return "not root (a network namespace and nft need root)";
  for (const c of ["ip", "nft"]) if (spawnSync("sh", ["-c", `command -v ${c}`], { stdio: "ignore" }).status !== 0) return `no ${c} command`;
  return null;
}

/**
 * `nft -f -` in the namespace, as the agent runs it: wall time, and the CPU time nft used
 * (user + system, from bash's `time`), which a loaded machine inflates far less than wall time.
 */
function nftApplyIn(ns: string, script: string): Promise<{ wall: number; cpu: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn("ip", ["netns", "exec", ns, "bash", "-c", "TIMEFORMAT='cpu %3U %3S'; time nft -f -"], { stdio: ["pipe", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d: Buffer) => (err += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const wall = performance.now() - t0;
      const m = /cpu (\d+\.\d+) (\d+\.\d+)\s*$/.exec(err);
      if (code !== 0 || !m) return reject(new Error(`nft -f failed (${code}): ${err.trim().slice(0, 400)}`));
      resolve({ wall, cpu: (Number(m[1]) + Number(m[2])) * 1000 });
    });
    child.stdin.end(script);
  });
}

/** `nft -a list table` of the bench table in the namespace (what the agent reads after an apply). */
function listWithHandles(ns: string): string {
  const r = spawnSync("ip", ["netns", "exec", ns, "nft", "-a", "list", "table", "inet", firewallTableName("wg-bench")], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`nft list table failed: ${r.stderr}`);
  return r.stdout;
}

/** Deterministic pseudo-random numbers (mulberry32), so every run compiles the same input. */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function scenario(): CompileInput {
  const r = rng(20261124);
  const pick = (n: number) => Math.floor(r() * n);
  const some = (n: number, k: number) => Array.from({ length: k }, () => 1 + pick(n));
  // Devices: 198.18.0.0/15 (the benchmarking range) and 2001:db8::/64; the last 5 % are network devices.
  const base4 = (198n << 24n) | (18n << 16n);
  const base6 = 0x20010db8n << 96n;
  const devices: CompileDevice[] = [];
  for (let i = 0; i < DEVICES; i++) {
    const network = i >= DEVICES * 0.95;
    devices.push({ id: i + 1, userId: 1 + (i % USERS), type: network ? "network" : "user", active: i % 50 !== 7, ips: [formatIp(base4 + BigInt(i + 2), 4), formatIp(base6 + BigInt(i + 2), 6)] });
  }
  const groupMembers = new Map<number, number[]>();
  for (let g = 1; g <= 100; g++) groupMembers.set(g, Array.from({ length: 50 }, (_, k) => 1 + ((g * 50 + k) % USERS)));
  const dest = () => {
    const kind = pick(4);
    const a = 1 + pick(250);
    if (kind === 0) return `192.0.2.${a}`;
    if (kind === 1) return `198.51.100.${Math.min(a, 200)}-198.51.100.${Math.min(a, 200) + pick(50)}`;
    if (kind === 2) return `203.0.113.${a & ~15}/28`;
    return `2001:db8:ffff:${a.toString(16)}::/64`;
  };
  const aliases = new Map<number, CompileAlias>();
  for (let i = 1; i <= 100; i++) aliases.set(i, { id: i, name: `alias-${i}`, kind: i % 2 ? "component" : "destination", destination: [dest(), dest()], ports: [String(1000 + i)], protocols: [6] });
  const rules: CompileRule[] = [];
  for (let i = 1; i <= RULES; i++) {
    const kind = i % 10;
    const rule: CompileRule = {
      id: i,
      name: `rule-${i}`,
      allowAllUsers: kind < 2,
      denyAllUsers: false,
      allowAllNetworkDevices: kind === 9,
      denyAllNetworkDevices: false,
      allowedUsers: kind >= 6 && kind < 9 ? some(USERS, 20) : [],
      deniedUsers: kind < 6 ? some(USERS, 5) : [],
      allowedGroups: kind >= 2 && kind < 6 ? some(100, 3) : [],
      deniedGroups: kind < 2 ? some(100, 1) : [],
      allowedDevices: kind === 8 ? some(DEVICES, 10) : [],
      deniedDevices: kind === 9 ? some(DEVICES, 10) : [],
      destination: [dest(), dest(), dest()],
      ports: pick(2) ? ["22", "8000-8100"] : ["443"],
      protocols: pick(3) ? [6] : [6, 17],
      aliases: i % 7 === 0 ? some(100, 2) : [],
    };
    rules.push(rule);
  }
  return { addresses: ["198.18.0.1/15", "2001:db8::1/64"], defaultAllow: false, rules, aliases, devices, groupMembers };
}

const suite: Suite = {
  name: "acl",
  description: `ACL compiler: ${RULES} rules over ${USERS} users and ${DEVICES} devices for one location (in-process, ${RUNS} runs after a warm-up)`,
  async run({ log }) {
    const input = scenario();
    log(`[acl] scenario built; compiling ${RUNS + 1} times...`);
    let out = compileFirewall(input); // warm-up (JIT)
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      out = compileFirewall(input);
      times.push(performance.now() - t0);
    }
    const allow = out.config.rules.filter((r) => r.verdict === "ALLOW").length;
    // The agent's side: the nft script for the interface.
    const scriptTimes: number[] = [];
    let script = "";
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      script = buildFirewall("wg-bench", out.config).script;
      scriptTimes.push(performance.now() - t0);
    }
    // The gRPC hop's own CPU work for that config: the protobuf encoding of the update (console)
    // and its decoding (agent), with the loader options both sides use.
    canonicalFirewall(out.config);
    const protoTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      canonicalFirewall(out.config);
      protoTimes.push(performance.now() - t0);
    }
    const nftRows: Row[] = [];
    const why = nftUnavailable();
    if (why) {
      log(`[acl] nft apply rows skipped: ${why}`);
      nftRows.push({ measure: "nft -f apply of that table", value: `skipped: ${why}`, target: "< 1000" });
    } else {
      const ns = `dgt-bench-acl-${process.pid}`;
      const add = spawnSync("ip", ["netns", "add", ns], { encoding: "utf8" });
      if (add.status !== 0) throw new Error(`ip netns add ${ns}: ${add.stderr}`);
      try {
        log(`[acl] applying the ${(script.length / 1024 / 1024).toFixed(1)} MiB script with nft -f in ${ns} (${APPLY_RUNS + 1} times)...`);
        const first = await nftApplyIn(ns, script);
        const replace: { wall: number; cpu: number }[] = [];
        for (let i = 0; i < APPLY_RUNS; i++) replace.push(await nftApplyIn(ns, script));
        // One rule changed (the first rule loses one allowed user), end to end on this machine,
        // as the agent applies it: against the table loaded above, incrementally.
        const changed: CompileInput = { ...input, rules: input.rules.map((r, i) => (i === 0 ? { ...r, deniedUsers: [...r.deniedUsers, 4999] } : r)) };
        // The agent keeps the rule fragments of the config it built last (as InterfaceManager does).
        const fragments: FirewallModelCache = new Map();
        let prev: FirewallModel = firewallModel("wg-bench", out.config, fragments).model;
        let handles = forwardHandles(listWithHandles(ns), prev);
        if (!handles) throw new Error("the loaded table's rule handles could not be read");
        const inc = { e2e: [] as number[], compile: [] as number[], model: [] as number[], wall: [] as number[], cpu: [] as number[], bytes: [] as number[], list: [] as number[] };
        for (let i = 0; i < APPLY_RUNS; i++) {
          const t0 = performance.now();
          const cfg = compileFirewall(i % 2 ? input : changed).config;
          const t1 = performance.now();
          const next = firewallModel("wg-bench", cfg, fragments).model;
          const s = incrementalScript(prev, next, handles)!;
          const t2 = performance.now();
          const applied = await nftApplyIn(ns, s);
          inc.e2e.push(performance.now() - t0);
          inc.compile.push(t1 - t0);
          inc.model.push(t2 - t1);
          inc.wall.push(applied.wall);
          inc.cpu.push(applied.cpu);
          inc.bytes.push(s.length);
          // After the change took effect (not in the figure above): the listing with handles.
          const t3 = performance.now();
          handles = forwardHandles(listWithHandles(ns), next);
          inc.list.push(performance.now() - t3);
          if (!handles) throw new Error("the rule handles could not be read after an incremental apply");
          prev = next;
        }
        // The same change through the whole-table path (first apply of an agent run, fallback).
        const whole: number[] = [];
        for (let i = 0; i < Math.min(3, APPLY_RUNS); i++) {
          const t0 = performance.now();
          const s = buildFirewall("wg-bench", compileFirewall(i % 2 ? input : changed).config).script;
          await nftApplyIn(ns, s);
          whole.push(performance.now() - t0);
        }
        const walls = replace.map((r) => r.wall);
        const cpus = replace.map((r) => r.cpu);
        nftRows.push(
          { measure: "named sets in the script", value: (script.match(/^\tset /gm) ?? []).length, target: "" },
          { measure: "nft -f apply, first load: wall / nft CPU (ms)", value: `${ms(first.wall)} / ${ms(first.cpu)}`, target: "< 1000" },
          { measure: `nft -f apply, whole-table replacement p50 of ${APPLY_RUNS}: wall / nft CPU (ms)`, value: `${ms(percentile(walls, 50))} / ${ms(percentile(cpus, 50))}`, target: "< 1000" },
          { measure: "nft -f apply, whole-table replacement max wall (ms)", value: ms(max(walls)), target: "" },
          {
            measure: `one rule change, as the agent applies it: compile + model + incremental script + nft -f, p50 of ${APPLY_RUNS} wall (ms)`,
            value: ms(percentile(inc.e2e, 50)),
            target: "< 1000 (with the gRPC hop)",
          },
          {
            measure: "  of which compile / agent model + script / nft -f wall / nft CPU, p50 (ms)",
            value: `${ms(percentile(inc.compile, 50))} / ${ms(percentile(inc.model, 50))} / ${ms(percentile(inc.wall, 50))} / ${ms(percentile(inc.cpu, 50))}`,
            target: "",
          },
          { measure: "incremental nft script size (one rule changed)", value: `${(percentile(inc.bytes, 50) / 1024).toFixed(1)} KiB`, target: "" },
          { measure: "after it: nft -a list table (drift listing, rule handles), p50 wall (ms)", value: ms(percentile(inc.list, 50)), target: "" },
          { measure: "one rule change through the whole-table path (first apply, fallback): compile + script + nft -f, p50 wall (ms)", value: ms(percentile(whole, 50)), target: "" },
        );
      } finally {
        spawnSync("ip", ["netns", "del", ns]);
      }
    }
    const rows: Row[] = [
      { measure: "compile p50 (ms)", value: ms(percentile(times, 50)), target: "< 500" },
      { measure: "compile max (ms)", value: ms(max(times)), target: "" },
      { measure: "emitted firewall rules", value: `${out.config.rules.length} (${allow} ALLOW, ${out.config.rules.length - allow} DENY)`, target: "" },
      { measure: "set elements (source + destination entries)", value: out.elements, target: "" },
      { measure: "config JSON size", value: `${(JSON.stringify(out.config).length / 1024).toFixed(0)} KiB`, target: "" },
      { measure: "firewall update protobuf encode + decode (the gRPC hop's CPU) p50 (ms)", value: ms(percentile(protoTimes, 50)), target: "" },
      { measure: "agent: nft script build p50 (ms)", value: ms(percentile(scriptTimes, 50)), target: "" },
      { measure: "nft script size", value: `${(script.length / 1024).toFixed(0)} KiB, ${script.split("\n").length} lines`, target: "" },
      ...nftRows,
    ];
    return rows;
  },
};

export default suite;
