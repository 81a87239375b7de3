/**
 * A bulk move of 5,000 network devices (lib/bulk, POST /device/bulk's service) in-process, on an
 * embedded PostgreSQL, with this process's gRPC server and NOTIFY-fed hub and one gRPC gateway
 * client per location (grpc-js, as a gateway dials the console; not the agent, no WireGuard):
 * - the action's transaction: resolve and lock 5,000 devices, new addresses, 5,000 activity
 *   entries, commit;
 * - commit → the batch received by each location's gateway client (the hub re-reads the whole
 *   configuration of the location and sends it as one `network` update), and action start →
 *   received;
 * - how many updates each gateway received for the whole action (one is the goal, instead of
 *   one per device) and the size of the batch on the wire (protobuf).
 * The acknowledgement by our agent (applied revision) is another branch's work: the end point
 * here is receipt by the gRPC client. Runs the move back and forth BENCH_BULK_RUNS times.
 * Knobs: BENCH_BULK_DEVICES (5000), BENCH_BULK_RUNS (3). Nothing here asserts anything about time.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import * as grpc from "@grpc/grpc-js";
import protobuf from "protobufjs";
import { makeTempDir } from "../../e2e/setup/server";
import { generateKeyPair } from "../../lib/wireguard/keys";
import { formatIp, parseCidr } from "../../lib/net/ip";
import { allocateMany } from "../../lib/wireguard/ip";
import { protoDir } from "../../gateway/proto";
import { max, ms, percentile } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";

const DEVICES = Number(process.env.BENCH_BULK_DEVICES || 5000);
const RUNS = Number(process.env.BENCH_BULK_RUNS || 3);

const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US");
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

async function run(ctx: SuiteContext): Promise<Row[]> {
  const dir = makeTempDir("dgt-bench-bulk-");
  process.env.DEFGUARD_ENCRYPTION_KEY ??= randomBytes(32).toString("hex");
  const { SECRET_NAMES } = await import("../../lib/config");
  for (const name of Object.values(SECRET_NAMES)) process.env[name] ??= randomBytes(32).toString("base64url");
  const { startEmbeddedPostgres, freePort } = await import("../../lib/db/embedded");
  const pgdb = await startEmbeddedPostgres(join(dir, "pg"), randomBytes(16).toString("hex"), { log: () => {} });
  let client: grpc.Client | null = null;
  let stopAll: (() => Promise<void>) | null = null;
  try {
    process.env.DATABASE_URL = pgdb.url;
    const { runMigrations } = await import("../../lib/db/migrate");
    await runMigrations(pgdb.url);
    const { getPool, closeDb } = await import("../../lib/db");
    const { createLocation } = await import("../../lib/locations/service");
    const { locationSchema } = await import("../../lib/locations/schema");
    const { bulkDevices } = await import("../../lib/bulk/service");
    const { startHub, stopHub, subscriberCount } = await import("../../lib/gateways/hub");
    const { loadProtos, startGrpcServer } = await import("../../lib/grpc/server");
    const { gatewayToken } = await import("../../lib/gateways/jwt");
    const { secret } = await import("../../lib/config");
    const pool = getPool();

    const actor = { userId: null, username: "bench", ip: null };
    const [{ id: adminId }] = (
      await pool.query<{ id: number }>(`insert into users (username, email, first_name, last_name) values ('bench-admin', 'bench@bench.invalid', 'Bench', 'Admin') returning id`)
    ).rows;
    const location = (name: string, address: string) => locationSchema.parse({ name, address, endpoint: "198.51.100.1", port: 51820 });
    const a = (await createLocation(actor, location("bench-a", "2001:db8:a::1/64"))).id;
    const b = (await createLocation(actor, location("bench-b", "2001:db8:b::1/64"))).id;

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

    await startHub();
    const server = await startGrpcServer("127.0.0.1", await freePort());
    stopAll = async () => {
      await server.stop();
      await stopHub();
      await closeDb();
    };
    const Service = loadProtos().gateway.GatewayService as unknown as grpc.ServiceClientConstructor;
    client = new Service(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": 64 * 1024 * 1024,
    });
    const got: Record<number, { at: number; update: { update?: string; network?: { peers?: unknown[] } } }[]> = { [a]: [], [b]: [] };
    const streams = [a, b].map((loc) => {
      const md = new grpc.Metadata();
      md.set("authorization", gatewayToken(loc, secret("gatewaySecret")));
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
    const stat = (v: number[]) => (v.length > 1 ? `p50 ${ms(percentile(v, 50))} ms, max ${ms(max(v))} ms` : `${ms(v[0])} ms`);
    const n = `${fmtInt(DEVICES)} network devices, ${RUNS} runs`;
    return [
      { measure: `bulk move of ${n}: the action's transaction (lock, new addresses, ${fmtInt(DEVICES)} activity entries, commit)`, result: stat(txMs), target: "-", details: "in-process service call (no HTTP)" },
      {
        measure: `commit → the batch received by both locations' gRPC gateway clients`,
        result: stat(commitToRecv),
        target: "-",
        details: "received by a grpc-js client in this process (end point: receipt; our agent's acknowledgement is not in this branch)",
      },
      { measure: `action start → received by both gateway clients`, result: stat(startToRecv), target: "acknowledged within 1 s (issue)", details: "receipt, not acknowledgement (see above)" },
      { measure: `updates per gateway for one action`, result: perGateway, target: "1 each", details: `the target's batch: one network update with all ${fmtInt(DEVICES)} peers, ${fmtInt(batchBytes)} bytes as protobuf` },
    ];
  } finally {
    client?.close();
    await stopAll?.().catch(() => {});
    await pgdb.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const suite: Suite = {
  name: "bulk",
  description: "bulk move of 5,000 network devices: transaction time, commit → one batch per gateway (gRPC client receipt)",
  run,
};
export default suite;
