/**
 * A bulk move of 5,000 network devices (lib/bulk, POST /device/bulk's service) in-process, on an
 * embedded PostgreSQL, with this process's gRPC server and NOTIFY-fed hub:
 *
 * 1. One gRPC gateway client per location (grpc-js, as a gateway dials the console; no WireGuard):
 *    - the action's transaction: resolve and lock 5,000 devices, new addresses, 5,000 activity
 *      entries, commit;
 *    - commit → the batch received by each location's gateway client (the hub re-reads the whole
 *      configuration of the location and sends it as one `network` update), and action start →
 *      received;
 *    - how many updates each gateway received for the whole action (one is the goal, instead of
 *      one per device) and the size of the batch on the wire (protobuf).
 * 2. Our agent (root only; skipped with the reason printed otherwise): one network namespace with
 *    two wireguard-go interfaces, each kept by its own agent (gateway/index.ts) for one location,
 *    as the network tests start them (e2e/net). The same move back and forth, timed from the commit
 *    to both agents' acknowledgements of the new revisions (GatewaySyncService.Applied), i.e. the
 *    5,000 peers removed from one interface and added to the other; with the agents' own apply
 *    time from their log and the commit-to-acknowledgement sample the console records (what the
 *    location overview's p50/p95 is made of).
 *
 * Runs the move back and forth BENCH_BULK_RUNS times in each part. Knobs: BENCH_BULK_DEVICES
 * (5000), BENCH_BULK_RUNS (3), BENCH_BULK_AGENT=0 (leave part 2 out), BENCH_BULK_AGENT_ENTRY
 * (the agent's entry file, default gateway/index.ts: another checkout's, to compare versions). Nothing here asserts anything
 * about time. Network: the namespace is joined to the root namespace by one /30 in a documentation
 * range (198.51.100.244/30); tunnel addresses are in 2001:db8::/32.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import * as grpc from "@grpc/grpc-js";
import protobuf from "protobufjs";
import { sh, wireguardGoPids as wireguardGoPidsOf } from "../../e2e/net/netns";
import { generateKeyPair } from "../../lib/wireguard/keys";
import { formatIp, parseCidr } from "../../lib/net/ip";
import { allocateMany } from "../../lib/wireguard/ip";
import { protoDir } from "../../gateway/proto";
import { cpuMs, sleep, startAgent, startBenchConsole, stopAgents, untilAcknowledged, type Agent, type BenchConsole } from "../lib/console";
import { max, ms, percentile } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";

const DEVICES = Number(process.env.BENCH_BULK_DEVICES || 5000);
const RUNS = Number(process.env.BENCH_BULK_RUNS || 3);
/** The agent to start (BENCH_BULK_AGENT_ENTRY: another checkout's gateway/index.ts, to compare versions). */
const AGENT = process.env.BENCH_BULK_AGENT_ENTRY || "gateway/index.ts";
const CONSOLE_HOST = "198.51.100.245";
const GW_HOST = "198.51.100.246";

const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US");
const stat = (v: number[]) => (v.length > 1 ? `p50 ${ms(percentile(v, 50))} ms, max ${ms(max(v))} ms` : `${ms(v[0])} ms`);

type BulkDevices = (actor: { userId: null; username: string; ip: null }, input: { action: "move"; ids: number[]; location_id: number }) => Promise<{ changed: number }>;

interface AgentPart {
  c: BenchConsole;
  grpcPort: number;
  a: number;
  b: number;
  ids: number[];
  /** Where the devices are now. */
  at: number;
  bulkDevices: BulkDevices;
}

/** Part 2: both locations served by our agent in a namespace; commit → both acknowledgements. */
async function agentPart(ctx: SuiteContext, p: AgentPart): Promise<Row[]> {
  const { c, a, b } = p;
  const { pool, res } = c;
  const ns = c.ns!;
  const agents: Agent[] = [];
  for (const [loc, tag] of [
    [a, "a"],
    [b, "b"],
  ] as const) {
    agents.push(startAgent(ctx, c, { loc, ifname: `wg-bk${tag}-${c.sfx}`, hostname: `${ns}-${tag}`, grpcPort: p.grpcPort, entry: AGENT }));
  }
  const peerCount = async (ifname: string) => {
    const r = await sh("ip", ["netns", "exec", ns, "wg", "show", ifname, "peers"]);
    if (r.code !== 0) throw new Error(`wg show ${ifname}: ${r.stderr}`);
    return r.stdout.split("\n").filter(Boolean).length;
  };
  /** The agent's own figure for its last full apply ("… applied to <if> in N ms: …"). */
  const lastApplyMs = (log: string): number | null => {
    const m = [...readFileSync(log, "utf8").matchAll(/applied to \S+ in (\d+) ms( \([^)]*\))?/g)].pop();
    if (m?.[2]) ctx.log(`[bulk]   ${log.replace(/.*\//, "")}: ${m[1]} ms${m[2]}`);
    return m ? Number(m[1]) : null;
  };
  const wireguardGoPids = () => agents.map((g) => wireguardGoPidsOf(res, ns, g.ifname)[0] ?? 0);
  try {
    // Both agents up and acknowledging the current revisions.
    const t0 = performance.now();
    await untilAcknowledged(pool, agents, { [a]: await c.currentRevision(a), [b]: await c.currentRevision(b) }, 180_000, 100);
    ctx.log(`[bulk] both agents up and in sync after ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const commitToAck: number[] = [];
    const recorded: number[] = [];
    const agentApply: number[] = [];
    const agentCpu: number[] = [];
    const wgGoCpu: number[] = [];
    const wgPids = wireguardGoPids();
    if (wgPids.some((x) => !x)) throw new Error(`wireguard-go of the agents not found (${wgPids.join(", ")})`);
    for (let r = 0; r < RUNS; r++) {
      const [from, to] = p.at === a ? [a, b] : [b, a];
      const cpu0 = agents.map((g) => cpuMs(g.child.pid!));
      const wg0 = wgPids.map(cpuMs);
      const res1 = await p.bulkDevices({ userId: null, username: "bench", ip: null }, { action: "move", ids: p.ids, location_id: to });
      const committed = performance.now();
      if (res1.changed !== DEVICES) throw new Error(`moved ${res1.changed} of ${DEVICES}`);
      p.at = to;
      const want = { [a]: await c.currentRevision(a), [b]: await c.currentRevision(b) };
      const acked = await untilAcknowledged(pool, agents, want, 60_000, 2);
      commitToAck.push(acked - committed);
      const cpu = agents.reduce((n, g, i) => n + cpuMs(g.child.pid!) - cpu0[i], 0);
      const wgCpu = wgPids.reduce((n, x, i) => n + cpuMs(x) - wg0[i], 0);
      agentCpu.push(cpu);
      wgGoCpu.push(wgCpu);
      const rec = await pool.query<{ s: number }>(
        `select max(seconds)::float8 s from gateway_propagation where (location_id = $1 and revision = $2) or (location_id = $3 and revision = $4)`,
        [a, want[a], b, want[b]],
      );
      if (rec.rows[0]?.s != null) recorded.push(rec.rows[0].s * 1000);
      const applies = agents.map((g) => lastApplyMs(g.log) ?? NaN);
      agentApply.push(Math.max(...applies));
      const counts = await Promise.all(agents.map((g) => peerCount(g.ifname)));
      const expect = agents.map((g) => (g.loc === to ? DEVICES : 0));
      if (counts.some((n, i) => n !== expect[i])) throw new Error(`peers on the interfaces: ${counts.join(", ")}, expected ${expect.join(", ")}`);
      ctx.log(
        `[bulk] agent run ${r + 1} (${from === a ? "A → B" : "B → A"}): commit → both acknowledged ${ms(acked - committed)} ms (polled every 2 ms), ` +
          `recorded ${rec.rows[0]?.s != null ? ms(rec.rows[0].s * 1000) : "-"} ms, agents' apply ${applies.map((x) => `${x} ms`).join(" / ")}, CPU: agents ${cpu} ms, wireguard-go ${wgCpu} ms`,
      );
      await sleep(500);
    }
    return [
      {
        measure: `commit → both locations' agents acknowledged the move of ${fmtInt(DEVICES)} devices`,
        result: stat(commitToAck),
        target: "acknowledged within 1 s (issue)",
        details: `our agent (gateway/, wireguard-go) in a namespace, one per location: ${fmtInt(DEVICES)} peers removed from one interface and added to the other; acknowledgement seen in gateway_sync (polled every 2 ms)`,
      },
      {
        measure: `the same, as the console records it (commit timestamp → acknowledgement, gateway_propagation)`,
        result: stat(recorded),
        target: "-",
        details: "the samples of the overview's p50/p95 and the /metrics histogram",
      },
      { measure: `the agents' apply of the batch (slower of the two, from their log)`, result: stat(agentApply), target: "-", details: "read the interface, diff, set peers, firewall" },
      {
        measure: `CPU per move: both agents (with their wg/ip/nft commands) / both wireguard-go`,
        result: `${stat(agentCpu)} / ${stat(wgGoCpu)}`,
        target: "-",
        details: "from /proc (10 ms ticks), from the commit to both acknowledgements (includes the agents' stats and state-report work meanwhile): less distorted by load than the times",
      },
    ];
  } finally {
    await stopAgents(agents);
  }
}

async function run(ctx: SuiteContext): Promise<Row[]> {
  const c = await startBenchConsole(ctx, { tag: "bulk", link: [CONSOLE_HOST, GW_HOST], skip: process.env.BENCH_BULK_AGENT === "0" ? "left out by BENCH_BULK_AGENT=0" : null });
  const { netSkip, grpcHost, pool } = c;
  let client: grpc.Client | null = null;
  try {
    const { createLocation } = await import("../../lib/locations/service");
    const { locationSchema } = await import("../../lib/locations/schema");
    const { bulkDevices } = await import("../../lib/bulk/service");
    const { subscriberCount } = await import("../../lib/gateways/hub");
    const { loadProtos } = await import("../../lib/grpc/server");

    const actor = { userId: null, username: "bench", ip: null };
    const [{ id: adminId }] = (
      await pool.query<{ id: number }>(`insert into users (username, email, first_name, last_name) values ('bench-admin', 'bench@bench.invalid', 'Bench', 'Admin') returning id`)
    ).rows;
    // Distinct ports: part 2 serves both from one namespace.
    const location = (name: string, address: string, port: number) => locationSchema.parse({ name, address, endpoint: "198.51.100.1", port });
    const a = (await createLocation(actor, location("bench-a", "2001:db8:a::1/64", 51820))).id;
    const b = (await createLocation(actor, location("bench-b", "2001:db8:b::1/64", 51821))).id;

    // 5,000 network devices in location A, straight into the database.
    const t0 = performance.now();
    const cidr = parseCidr("2001:db8:a::/64")!;
    const ips = allocateMany(cidr, new Set([cidr.addr + 1n]), DEVICES).map((v) => formatIp(v, 6));
    const keys = Array.from({ length: DEVICES }, () => generateKeyPair().publicKey);
    const ids: number[] = [];
    for (let off = 0; off < DEVICES; off += 2000) {
      const got = await pool.query<{ id: number }>(
        `insert into devices (name, wireguard_pubkey, user_id, device_type) select 'nd-' || ($1::int + n), k, $2, 'network' from unnest($3::text[]) with ordinality as t(k, n) returning id`,
        [off, adminId, keys.slice(off, off + 2000)],
      );
      const chunk = got.rows.map((r) => r.id);
      ids.push(...chunk);
      await pool.query(`insert into device_locations (device_id, location_id, ips) select d, $1, array[ip] from unnest($2::int[], $3::text[]) as t(d, ip)`, [
        a,
        chunk,
        ips.slice(off, off + 2000),
      ]);
    }
    ctx.log(`[bulk] ${fmtInt(DEVICES)} network devices inserted in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const grpcPort = await c.serve();
    const Service = loadProtos().gateway.GatewayService as unknown as grpc.ServiceClientConstructor;
    client = new Service(`${grpcHost}:${grpcPort}`, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": 64 * 1024 * 1024,
    });
    const got: Record<number, { at: number; update: { update?: string; network?: { peers?: unknown[] } } }[]> = { [a]: [], [b]: [] };
    const streams = [a, b].map((loc) => {
      const md = new grpc.Metadata();
      md.set("authorization", c.token(loc));
      md.set("hostname", `bench-gw-${loc}`);
      const s = (client as unknown as { Updates: (req: object, md: grpc.Metadata) => grpc.ClientReadableStream<never> }).Updates({}, md);
      s.on("data", (u: { update?: string; network?: { peers?: unknown[] } }) => got[loc].push({ at: performance.now(), update: u }));
      s.on("error", () => {});
      return s;
    });
    for (let i = 0; subscriberCount(a) < 1 || subscriberCount(b) < 1; i++) {
      if (i > 200) throw new Error("the gateway clients did not subscribe");
      await sleep(50);
    }
    const root = await protobuf.load(join(protoDir(), "gateway.proto"));
    const Update = root.lookupType("gateway.Update");

    const txMs: number[] = [];
    const commitToRecv: number[] = [];
    const startToRecv: number[] = [];
    let perGateway = "";
    let batchBytes = 0;
    for (let r = 0; r < RUNS; r++) {
      const [from, to] = r % 2 === 0 ? [a, b] : [b, a];
      got[a].length = 0;
      got[b].length = 0;
      const s = performance.now();
      const res = await bulkDevices(actor, { action: "move", ids, location_id: to });
      const committed = performance.now();
      if (res.changed !== DEVICES) throw new Error(`moved ${res.changed} of ${DEVICES}`);
      for (let i = 0; !(got[from].length && got[to].length); i++) {
        if (performance.now() - committed > 60_000) throw new Error("no batch within 60 s");
        await sleep(1);
      }
      // Anything else that would come (per-device updates) has a second to show.
      await sleep(1000);
      const recvTo = got[to][0];
      const recvFrom = got[from][0];
      const last = Math.max(recvTo.at, recvFrom.at);
      txMs.push(committed - s);
      commitToRecv.push(last - committed);
      startToRecv.push(last - s);
      perGateway = `source ${got[from].length}, target ${got[to].length}`;
      const peers = recvTo.update.network?.peers?.length ?? 0;
      if (recvTo.update.update !== "network" || peers !== DEVICES) throw new Error(`target got ${recvTo.update.update} with ${peers} peers`);
      batchBytes = Update.encode(Update.fromObject({ update_type: 1, network: recvTo.update.network })).finish().length;
      ctx.log(`[bulk] run ${r + 1}: transaction ${ms(committed - s)} ms, commit → both gateways ${ms(last - committed)} ms (${perGateway})`);
    }
    for (const s of streams) s.cancel();
    client.close();
    client = null;
    const n = `${fmtInt(DEVICES)} network devices, ${RUNS} runs`;
    const rows: Row[] = [
      { measure: `bulk move of ${n}: the action's transaction (lock, new addresses, ${fmtInt(DEVICES)} activity entries, commit)`, result: stat(txMs), target: "-", details: "in-process service call (no HTTP)" },
      {
        measure: `commit → the batch received by both locations' gRPC gateway clients`,
        result: stat(commitToRecv),
        target: "-",
        details: "received by a grpc-js client in this process (end point: receipt; acknowledgement by our agent: the rows below)",
      },
      { measure: `action start → received by both gateway clients`, result: stat(startToRecv), target: "-", details: "receipt, not acknowledgement (see above)" },
      { measure: `updates per gateway for one action`, result: perGateway, target: "1 each", details: `the target's batch: one network update with all ${fmtInt(DEVICES)} peers, ${fmtInt(batchBytes)} bytes as protobuf` },
    ];
    if (netSkip) {
      rows.push({ measure: "commit → both locations' agents acknowledged", result: "skipped", target: "acknowledged within 1 s (issue)", details: netSkip });
      return rows;
    }
    for (let i = 0; subscriberCount(a) > 0 || subscriberCount(b) > 0; i++) {
      if (i > 200) throw new Error("the gateway clients did not go away");
      await sleep(50);
    }
    rows.push(...(await agentPart(ctx, { c, grpcPort, a, b, ids, at: RUNS % 2 === 0 ? a : b, bulkDevices: bulkDevices as BulkDevices })));
    return rows;
  } finally {
    client?.close();
    await c.stop();
  }
}

const suite: Suite = {
  name: "bulk",
  description: "bulk move of 5,000 network devices: transaction time, commit → one batch per gateway (gRPC client receipt), commit → acknowledged by our agent (one per location, wireguard-go)",
  run,
};
export default suite;
