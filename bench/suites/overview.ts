/**
 * The VPN overview at scale (nothing asserted, targets only reported). An embedded PostgreSQL
 * of its own, migrated; no web build is needed: the overview's service functions are called
 * in this process and their answers serialised with JSON.stringify, which is what the route
 * wrapper adds (the time includes it; HTTP and session checks are not included).
 *
 * 1. Stats ingest with the rollups: lib/stats/ingest.ts ingestBatch against one location of
 *    10,000 devices, batches of STATS_BATCH, ~10 s: the same measurement as the gateway suite's
 *    ingest row (target ≥ 20,000 samples/s), on empty stats tables.
 * 2. Seed: BENCH_OVERVIEW_DEVICES (10,000) devices of BENCH_OVERVIEW_DEVICES/2 users, spread over
 *    BENCH_OVERVIEW_LOCATIONS (10) locations, every device sending a sample every
 *    BENCH_OVERVIEW_PERIOD seconds (30, the agent's default) for the last 24 hours (28.8 million
 *    samples with the defaults), written straight into device_stats by SQL; the rollups are
 *    then filled by the backfill job's code (lib/stats/rollups.ts), timed.
 * 3. GET /network/stats, GET /network/{id}/stats and GET /network/{id}/stats/users with
 *    from = 24 h ago (and 1 h ago for comparison), BENCH_OVERVIEW_REQUESTS (50) sequential
 *    calls each: p50/p99, answer size, and CPU per call of this process and of the PostgreSQL
 *    server (from /proc: load on the machine stretches the latencies, hardly the CPU time).
 *
 * Knobs: BENCH_OVERVIEW_DEVICES, BENCH_OVERVIEW_LOCATIONS, BENCH_OVERVIEW_PERIOD,
 * BENCH_OVERVIEW_REQUESTS, BENCH_OVERVIEW_INGEST_SECONDS (10), BENCH_OVERVIEW_SKIP_INGEST=1,
 * BENCH_OVERVIEW_ONLY_INGEST=1.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedDb } from "../../lib/db/embedded";
import { runMigrations } from "../../lib/db/migrate";
import { generateKeyPair } from "../../lib/wireguard/keys";
import { max, ms, percentile } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";

const DEVICES = Number(process.env.BENCH_OVERVIEW_DEVICES || 10_000);
const LOCATIONS = Number(process.env.BENCH_OVERVIEW_LOCATIONS || 10);
const PERIOD = Number(process.env.BENCH_OVERVIEW_PERIOD || 30);
const REQUESTS = Number(process.env.BENCH_OVERVIEW_REQUESTS || 50);
const INGEST_SECONDS = Number(process.env.BENCH_OVERVIEW_INGEST_SECONDS || 10);
const INGEST_DEVICES = 10_000;

const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US");
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;

/** Random 32-byte keys in WireGuard's base64 form (no key derivation: only uniqueness matters here). */
const fakeKeys = (n: number) => Array.from({ length: n }, () => randomBytes(32).toString("base64"));

async function location(db: pg.Client, name: string, octet: number): Promise<number> {
  const r = await db.query<{ id: number }>(
    `insert into locations (name, address, port, endpoint, allowed_ips, pubkey, prvkey_enc)
     values ($1, array[$2], 51820, 'vpn.example.com', array['10.0.0.0/8'], $3, 'unused') returning id`,
    [name, `10.${octet}.0.1/16`, generateKeyPair().publicKey],
  );
  return r.rows[0].id;
}

/** `count` devices of `users` users (round robin), each in location `locationOf(i)`. */
async function devices(db: pg.Client, prefix: string, count: number, userIds: number[], locationOf: (i: number) => [number, number]): Promise<string[]> {
  const keys = fakeKeys(count);
  for (let off = 0; off < count; off += 5000) {
    const slice = keys.slice(off, off + 5000);
    const ids = (
      await db.query<{ id: number }>(
        `insert into devices (name, wireguard_pubkey, user_id) select $1 || (n + $2), k, u from unnest($3::text[], $4::int[]) with ordinality as t(k, u, n) order by n returning id`,
        [`${prefix}-`, off, slice, slice.map((_, j) => userIds[(off + j) % userIds.length])],
      )
    ).rows.map((r) => r.id);
    const locs = ids.map((_, j) => locationOf(off + j));
    await db.query(
      `insert into device_locations (device_id, location_id, ips) select d, l, array['10.' || o || '.' || (n / 250 + 1) || '.' || (n % 250 + 1)]
         from unnest($1::int[], $2::int[], $3::int[], $4::int[]) as t(d, l, o, n)`,
      [ids, locs.map((l) => l[0]), locs.map((l) => l[1]), ids.map((_, j) => Math.floor((off + j) / LOCATIONS))],
    );
  }
  return keys;
}

/**
 * CPU time (ms) of a PostgreSQL server so far: its backends and other children, and the children
 * it has reaped (parallel workers). Linux /proc; null elsewhere. Unlike latency, load on the
 * machine hardly changes it.
 */
function postgresCpuMs(postmaster: number | null): number | null {
  if (!postmaster) return null;
  try {
    const fields = (pid: string) => readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    const own = fields(String(postmaster));
    let ticks = Number(own[13]) + Number(own[14]); // cutime + cstime
    for (const pid of readdirSync("/proc")) {
      if (!/^\d+$/.test(pid)) continue;
      try {
        const f = fields(pid);
        if (Number(f[1]) === postmaster) ticks += Number(f[11]) + Number(f[12]); // utime + stime
      } catch {
        // gone meanwhile
      }
    }
    return ticks * 10; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

async function timed<T>(
  n: number,
  fn: () => Promise<T>,
  postmaster: number | null,
): Promise<{ p50: number; p99: number; max: number; bytes: number; nodeCpu: number; pgCpu: number | null }> {
  let bytes = JSON.stringify(await fn()).length; // warm-up
  const t: number[] = [];
  const cpu0 = process.cpuUsage();
  const pg0 = postgresCpuMs(postmaster);
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    bytes = Buffer.byteLength(JSON.stringify(await fn()));
    t.push(performance.now() - t0);
  }
  const cpu = process.cpuUsage(cpu0);
  const pg1 = postgresCpuMs(postmaster);
  return {
    p50: percentile(t, 50),
    p99: percentile(t, 99),
    max: max(t),
    bytes,
    nodeCpu: (cpu.user + cpu.system) / 1000 / n,
    pgCpu: pg0 === null || pg1 === null ? null : (pg1 - pg0) / n,
  };
}

async function run(ctx: SuiteContext): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "defguard-bench-overview-"));
  chmodSync(dir, 0o755);
  let embedded: EmbeddedDb | null = null;
  let db: pg.Client | null = null;
  const rows: Row[] = [];
  try {
    embedded = await startEmbeddedPostgres(join(dir, "pg"), randomBytes(18).toString("base64url"));
    await runMigrations(embedded.url);
    process.env.DATABASE_URL = embedded.url;
    process.env.DEFGUARD_ENCRYPTION_KEY ??= randomBytes(32).toString("hex");
    db = new pg.Client({ connectionString: embedded.url });
    await db.connect();
    await db.query("insert into settings (id) values (1) on conflict do nothing");
    const { ingestBatch, STATS_BATCH } = await import("../../lib/stats/ingest");
    const { backfillRollups } = await import("../../lib/stats/rollups");
    const { networkStats, locationStats, locationUserStatsChecked } = await import("../../lib/stats/service");

    // 1. Ingest.
    if (process.env.BENCH_OVERVIEW_SKIP_INGEST !== "1") {
      const [{ id: owner }] = (await db.query<{ id: number }>("insert into users (username, email, first_name, last_name) values ('ingest', 'ingest@bench.invalid', 'I', 'N') returning id")).rows;
      const loc = await location(db, "ingest", 250);
      const keys = await devices(db, "ingest", INGEST_DEVICES, [owner], () => [loc, 250]);
      await db.query("analyze devices; analyze device_locations");
      let counter = 1000;
      const batches = Math.ceil(INGEST_DEVICES / STATS_BATCH);
      const now = Math.floor(Date.now() / 1000);
      const batchAt = (i: number) => {
        counter += 10;
        const off = (i % batches) * STATS_BATCH;
        return keys.slice(off, off + STATS_BATCH).map((k, j) => ({ public_key: k, endpoint: `198.51.100.${(j % 250) + 1}:${40000 + (j % 1000)}`, upload: counter * 3 + j, download: counter * 7 + j, latest_handshake: now }));
      };
      await ingestBatch(loc, batchAt(0));
      let samples = 0;
      const lat: number[] = [];
      const w0 = performance.now();
      for (let i = 1; performance.now() - w0 < INGEST_SECONDS * 1000; i++) {
        const batch = batchAt(i);
        const s = performance.now();
        await ingestBatch(loc, batch);
        lat.push(performance.now() - s);
        samples += batch.length;
      }
      const secs = (performance.now() - w0) / 1000;
      rows.push({
        measure: `stats ingest with rollups: ingestBatch, ${fmtInt(INGEST_DEVICES)} devices in one location, batches of ${fmtInt(STATS_BATCH)}`,
        result: `${fmtInt(samples / secs)} samples/s`,
        target: "≥ 20,000/s",
        details: `${fmtInt(samples)} samples in ${secs.toFixed(1)} s, batch p50 ${ms(percentile(lat, 50))} ms / p99 ${ms(percentile(lat, 99))} ms`,
      });
      ctx.log(`[overview] ${rows[rows.length - 1].result}`);
      await db.query("delete from locations where id = $1", [loc]);
      await db.query("delete from devices where user_id = $1", [owner]);
      await db.query("truncate device_stats, stats_minute, stats_hour, stats_5min");
    }

    if (process.env.BENCH_OVERVIEW_ONLY_INGEST === "1") return rows;

    // 2. Seed.
    const t0 = performance.now();
    const userCount = Math.max(1, Math.floor(DEVICES / 2));
    const userIds = (
      await db.query<{ id: number }>(
        `insert into users (username, email, first_name, last_name) select 'user' || g, 'user' || g || '@bench.invalid', 'First' || g, 'Last' || g from generate_series(1, $1::int) g returning id`,
        [userCount],
      )
    ).rows.map((r) => r.id);
    const locs: number[] = [];
    for (let i = 0; i < LOCATIONS; i++) locs.push(await location(db, `site-${i}`, i + 1));
    await devices(db, "dev", DEVICES, userIds, (i) => [locs[i % LOCATIONS], (i % LOCATIONS) + 1]);
    ctx.log(`[overview] ${fmtInt(userCount)} users, ${fmtInt(DEVICES)} devices in ${LOCATIONS} locations: ${ms(performance.now() - t0)} ms`);

    // Samples: every device every PERIOD seconds for 24 h, an hour per statement. Transfer varies by
    // device and time of day; a quarter of the samples carry no traffic.
    const t1 = performance.now();
    const end = Math.floor(Date.now() / 1000 / PERIOD) * PERIOD;
    for (let h = 24; h > 0; h--) {
      await db.query(
        `insert into device_stats (device_id, location_id, collected_at, upload, download, endpoint, latest_handshake)
         select dl.device_id, dl.location_id, to_timestamp(ts),
                case when (dl.device_id + ts / $3) % 4 = 0 then 0 else (dl.device_id * 7919 + ts) % 500000 end,
                case when (dl.device_id + ts / $3) % 4 = 0 then 0 else (dl.device_id * 104729 + ts) % 5000000 end,
                null, to_timestamp(ts)
           from generate_series($1::bigint, $2::bigint, $3::bigint) ts, device_locations dl join devices d on d.id = dl.device_id
          where d.name like 'dev-%'`,
        [end - h * 3600 + PERIOD, end - (h - 1) * 3600, PERIOD],
      );
      ctx.log(`[overview] samples: hour ${25 - h}/24 (${ms(performance.now() - t1)} ms)`);
    }
    await db.query("update device_locations set last_handshake = now() - (device_id % 600) * interval '1 second'");
    const [{ n: sampleCount }] = (await db.query<{ n: string }>("select count(*) n from device_stats")).rows;
    const seedMs = performance.now() - t1;
    // Rollups by the backfill job's own code, in one chunk.
    await db.query("update stats_rollup_state set backfill_below = (select max(id) + 1 from device_stats), hour_from = (select max(id) + 1 from device_stats), five_hi = (select max(id) + 1 from device_stats), pending_hi = null");
    const t2 = performance.now();
    let folded = 0;
    for (let n; (n = await backfillRollups(5_000_000)) > 0; ) folded += n;
    const backfillMs = performance.now() - t2;
    await db.query("analyze");
    const [{ h: hourRows, f: fiveRows, m: minuteRows }] = (
      await db.query<{ h: string; f: string; m: string }>("select (select count(*) from stats_hour) h, (select count(*) from stats_5min) f, (select count(*) from stats_minute) m")
    ).rows;
    rows.push({
      measure: `seed: ${fmtInt(DEVICES)} devices × 24 h of samples every ${PERIOD} s (${LOCATIONS} locations, ${fmtInt(userCount)} users)`,
      result: `${fmtInt(Number(sampleCount))} samples`,
      target: "-",
      details: `written in ${(seedMs / 1000).toFixed(0)} s; backfill job folded ${fmtInt(folded)} into ${fmtInt(Number(hourRows))} hour, ${fmtInt(Number(fiveRows))} 5-minute and ${fmtInt(Number(minuteRows))} minute rows in ${(backfillMs / 1000).toFixed(1)} s`,
    });

    // 3. The overview.
    const perLocation = DEVICES / LOCATIONS;
    for (const hours of [24, 1]) {
      const from = () => new Date(Date.now() - hours * 3600_000);
      const cases: [string, string, () => Promise<unknown>, string][] = [
        ["GET /network/stats", "p99 < 150 ms", () => networkStats(from()), `${fmtInt(DEVICES)} devices`],
        ["GET /network/{id}/stats", "p99 < 150 ms", () => locationStats(locs[0], from()), `${fmtInt(perLocation)} devices in the location`],
        ["GET /network/{id}/stats/users", "p99 < 300 ms, < 2 MB", () => locationUserStatsChecked(locs[0], from()), `${fmtInt(perLocation)} devices of ${fmtInt(perLocation)} users in the location`],
      ];
      for (const [label, target, fn, note] of cases) {
        const r = await timed(REQUESTS, fn, embedded.pid());
        rows.push({
          measure: `${label}?from=<${hours} h ago>`,
          result: `p50 ${ms(r.p50)} ms, p99 ${ms(r.p99)} ms`,
          target: hours === 24 ? target : "-",
          details: `${mb(r.bytes)}; ${note}; ${REQUESTS} sequential calls, max ${ms(r.max)} ms; CPU per call: Node.js ${ms(r.nodeCpu)} ms, PostgreSQL ${r.pgCpu === null ? "?" : ms(r.pgCpu)} ms`,
        });
        ctx.log(`[overview] ${label} ${hours} h: ${rows[rows.length - 1].result}, ${mb(r.bytes)}`);
      }
    }
    return rows;
  } finally {
    await db?.end().catch(() => {});
    const { closeDb } = await import("../../lib/db");
    await closeDb().catch(() => {});
    await embedded?.stop().catch(() => {});
    spawn("rm", ["-rf", dir], { detached: true, stdio: "ignore" }).unref();
  }
}

const suite: Suite = {
  name: "overview",
  description: `VPN overview at scale: ${fmtInt(DEVICES)} devices in ${LOCATIONS} locations, 24 h of samples every ${PERIOD} s; stats ingest rate with rollups; stats endpoints p50/p99 and answer size`,
  run,
};
export default suite;
