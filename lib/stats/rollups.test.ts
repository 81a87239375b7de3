/**
 * Stats rollups (migrations 0026, 0035): what the ingest adds to stats_minute and the hourly job
 * folds into stats_hour and stats_5min equal the sums of the samples, on random samples (several seeds, counter resets,
 * several samples per minute, two locations); the backfill job folds samples older than the
 * rollups in exactly once; retention removes old rollups; the per-device series read from each
 * source (hours, 5 minutes, samples) sum to the samples and stay within their point limits.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { createUserDevice } from "@/lib/devices/service";
import { ingestBatch, type PeerSample } from "@/lib/stats/ingest";
import { backfillRollups, rollHours } from "@/lib/stats/rollups";
import { pruneStats } from "@/lib/jobs/presence";
import { deviceSeriesSource, deviceSeriesStep, DEVICE_POINT_BUDGET, locationUserStats, MAX_DEVICE_POINTS, networkStats } from "@/lib/stats/service";
import { generateKeyPair } from "@/lib/wireguard/keys";
import { createUser, query } from "@/tests/helpers";

const ACTOR = { userId: null, username: "test", ip: null };
const DEVICES = 12;
let locations: number[] = [];
let keys: string[] = [];

/** mulberry32: a small seeded generator, so a failing seed can be replayed. */
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

beforeAll(async () => {
  await createUser({ username: "roller" });
  for (const [i, name] of ["North", "South"].entries()) {
    locations.push((await createLocation(ACTOR, locationSchema.parse({ name, address: `10.${40 + i}.0.1/24`, endpoint: "vpn.example.com", port: 51830 + i }))).id);
  }
  for (let i = 0; i < DEVICES; i++) {
    const k = generateKeyPair().publicKey;
    await createUserDevice(ACTOR, "roller", { name: `dev${i}`, wireguard_pubkey: k, description: null });
    keys.push(k);
  }
});

async function clearStats() {
  await query("truncate device_stats, stats_minute, stats_hour, stats_5min");
  await query("update device_locations set upload_total = 0, download_total = 0, last_sample_at = null");
  await query("update stats_rollup_state set backfill_below = null, hour_from = 1, five_hi = 1, pending_hi = null, pending_xmax = null, five_from = '-infinity'");
}

/**
 * The hourly job until everything written so far is folded: its first run only reads the
 * horizon, and a fold waits for every transaction older than that horizon in the whole cluster,
 * so a test file migrating a database beside this one (a long transaction) holds it back for a
 * moment: up to 400 runs, 25 ms apart.
 */
async function foldAll() {
  const state = () => query<{ hour_from: string; top: string }>("select hour_from::text, (select coalesce(max(id) + 1, 1) from device_stats)::text top from stats_rollup_state");
  let [st] = await state();
  for (let i = 0; i < 400; i++) {
    await rollHours();
    [st] = await state();
    if (st.hour_from === st.top) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  expect(st.hour_from).toBe(st.top);
}

/** Raw sums next to the rollups (after folding the hours). */
async function compareWithRaw() {
  await foldAll();
  const minuteRaw = await query(`select location_id, date_bin('1 minute', collected_at, timestamptz 'epoch') b, sum(upload)::text up, sum(download)::text down
                                   from device_stats group by 1, 2 having count(*) > 0 order by 1, 2`);
  const minuteRoll = await query(`select location_id, bucket b, upload::text up, download::text down from stats_minute order by 1, 2`);
  expect(minuteRoll).toEqual(minuteRaw);
  const hourRaw = await query(`select location_id, date_bin('1 hour', collected_at, timestamptz 'epoch') b, device_id, sum(upload)::text up, sum(download)::text down
                                 from device_stats group by 1, 2, 3 order by 1, 2, 3`);
  const hourRoll = await query(`select location_id, bucket b, device_id, upload::text up, download::text down from stats_hour order by 1, 2, 3`);
  expect(hourRoll).toEqual(hourRaw);
  const fiveRaw = await query(`select location_id, date_bin('5 minutes', collected_at, timestamptz 'epoch') b, device_id, sum(upload)::text up, sum(download)::text down
                                 from device_stats group by 1, 2, 3 order by 1, 2, 3`);
  const fiveRoll = await query(`select location_id, bucket b, device_id, upload::text up, download::text down from stats_5min order by 1, 2, 3`);
  expect(fiveRoll).toEqual(fiveRaw);
  const lastRaw = await query(`select device_id, location_id, max(collected_at) at from device_stats group by 1, 2 order by 1, 2`);
  const lastRoll = await query(`select device_id, location_id, last_sample_at at from device_locations where last_sample_at is not null order by 1, 2`);
  expect(lastRoll).toEqual(lastRaw);
  return minuteRaw.length;
}

describe("rollups kept by the ingest", () => {
  for (const seed of [1, 7, 42, 2026]) {
    it(`equal the raw sums on random samples (seed ${seed})`, async () => {
      await clearStats();
      const rand = rng(seed);
      const counters = new Map<string, [number, number]>();
      const base = Date.now() - 26 * 3600_000;
      let t = base;
      // Batches at increasing times over the last 26 hours, some in the same minute.
      for (let b = 0; b < 60; b++) {
        t += Math.floor(rand() * 50 * 60_000);
        if (t > Date.now()) break;
        const loc = locations[Math.floor(rand() * locations.length)];
        const samples: PeerSample[] = [];
        for (const k of keys) {
          if (rand() < 0.3) continue;
          let [up, down] = counters.get(`${loc}/${k}`) ?? [0, 0];
          if (rand() < 0.05) [up, down] = [0, 0]; // interface restart: counters reset
          up += Math.floor(rand() * 5_000_000);
          down += rand() < 0.2 ? 0 : Math.floor(rand() * 90_000_000);
          counters.set(`${loc}/${k}`, [up, down]);
          samples.push({ public_key: k, endpoint: "198.51.100.7:5000", upload: up, download: down, latest_handshake: Math.floor(t / 1000) });
        }
        await ingestBatch(loc, samples, new Date(t));
        if (rand() < 0.2) await rollHours(); // the hourly job now and then: part folded, part not
      }

      // The API over the rollups: totals and series equal the raw samples from the minute of `from`.
      const from = new Date(Math.floor((Date.now() - 24 * 3600_000) / 60_000) * 60_000);
      const [raw] = await query<{ up: number; down: number }>(
        "select coalesce(sum(upload), 0)::float8 up, coalesce(sum(download), 0)::float8 down from device_stats where collected_at >= $1",
        [from],
      );
      const all = await networkStats(from);
      expect([all.upload, all.download]).toEqual([raw.up, raw.down]);
      expect(all.transfer_series.reduce((a, p) => a + p.upload, 0)).toBe(raw.up);
      const [active] = await query<{ n: number }>("select count(distinct device_id)::int n from device_stats where collected_at >= $1", [from]);
      expect(all.active_user_devices).toBe(active.n);
      const one = await networkStats(from, locations[0]);
      const [rawOne] = await query<{ up: number }>("select coalesce(sum(upload), 0)::float8 up from device_stats where collected_at >= $1 and location_id = $2", [from, locations[0]]);
      expect(one.upload).toBe(rawOne.up);

      // Per-device series: a day reads stats_5min (12 devices), or the samples while stats_5min
      // does not cover the window (an upgraded installation's first day), a week the hourly
      // rollup; before the job folded the samples, and after. Each device's points sum to its
      // samples since `from` (since its 5 minutes or its hour for the rollups).
      const weekAgo = new Date(Date.now() - 7 * 86400_000);
      const hourAgo = new Date(Date.now() - 3600_000);
      const cases = [
        [false, from, "five"],
        [false, hourAgo, "five"],
        [false, from, "samples"],
        [false, weekAgo, "hour"],
        [true, weekAgo, "hour"],
        [true, from, "five"],
      ] as const;
      for (const [folded, start, source] of cases) {
        if (folded) await foldAll();
        await query(source === "samples" ? "update stats_rollup_state set five_from = now()" : "update stats_rollup_state set five_from = '-infinity'");
        const users = await locationUserStats(locations[1], start);
        const listed = users.user_devices.flatMap((u) => u.devices);
        const step = deviceSeriesStep((Date.now() - start.getTime()) / 1000, listed.length, source !== "samples");
        expect(deviceSeriesSource(step, source !== "samples")).toBe(source);
        const unit = { hour: 3600_000, five: 300_000, samples: 1 }[source];
        const since = new Date(Math.floor(start.getTime() / unit) * unit);
        const perDevice = await query<{ id: number; up: number }>(
          "select device_id id, sum(upload)::float8 up from device_stats where location_id = $1 and collected_at >= $2 group by 1",
          [locations[1], since],
        );
        const got = new Map(listed.map((d) => [d.id, d.stats.reduce((acc, p) => acc + p.upload, 0)]));
        for (const d of perDevice) expect(got.get(d.id) ?? 0).toBe(d.up);
        for (const d of listed) {
          expect(d.stats.length).toBeLessThanOrEqual(MAX_DEVICE_POINTS);
          // In time order, one point per bucket.
          const times = d.stats.map((p) => new Date(p.collected_at).getTime());
          expect(times).toEqual([...new Set(times)].sort((a, b) => a - b));
          for (const p of d.stats) expect(new Date(p.collected_at).getTime() % (step * 1000)).toBe(0);
        }
      }
      expect(await compareWithRaw()).toBeGreaterThan(10);
    });
  }
});

describe("backfill of samples older than the rollups", () => {
  it("folds every older sample in once, in chunks, and leaves newer ones to the ingest", async () => {
    await clearStats();
    const rand = rng(99);
    // Samples written before migration 0026: straight into device_stats, no rollups.
    const rows: [number, number, Date, number, number][] = [];
    const deviceIds = (await query<{ id: number }>("select id from devices order by id")).map((r) => r.id);
    for (let i = 0; i < 500; i++) {
      rows.push([deviceIds[i % deviceIds.length], locations[i % 2], new Date(Date.now() - Math.floor(rand() * 20 * 3600_000)), Math.floor(rand() * 1e6), Math.floor(rand() * 1e6)]);
    }
    await query(
      "insert into device_stats (device_id, location_id, collected_at, upload, download) select * from unnest($1::int[], $2::int[], $3::timestamptz[], $4::bigint[], $5::bigint[])",
      [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3]), rows.map((r) => r[4])],
    );
    const [{ below }] = await query<{ below: string }>("select (max(id) + 1)::text below from device_stats");
    await query("update stats_rollup_state set backfill_below = $1, hour_from = $1, five_hi = $1", [below]);
    // Newer samples through the ingest meanwhile (their rollups are written by it).
    await ingestBatch(locations[0], keys.slice(0, 5).map((k, i) => ({ public_key: k, endpoint: "", upload: 1000 + i, download: 2000 + i, latest_handshake: 0 })));

    let runs = 0;
    let folded = 0;
    for (let n; (n = await backfillRollups(120)) > 0; runs++) folded += n;
    expect(folded).toBe(500);
    expect(runs).toBe(Math.ceil(500 / 120));
    expect((await query("select backfill_below from stats_rollup_state"))[0]).toEqual({ backfill_below: null });
    expect(await backfillRollups(120)).toBe(0);
    await compareWithRaw();
  });
});

describe("rolling upgrade", () => {
  it("catches stats_5min up on samples a console without it folded into hours alone", async () => {
    await clearStats();
    const at = Date.now() - 2 * 3600_000;
    for (let i = 0; i < 4; i++) {
      await ingestBatch(locations[0], keys.map((k, j) => ({ public_key: k, endpoint: "", upload: (i + 1) * (1000 + j), download: (i + 1) * 50 * (j + 1), latest_handshake: 0 })), new Date(at + i * 600_000));
    }
    // What the stats-hour-rollup job of the previous version does: stats_hour and hour_from only.
    await query(`insert into stats_hour (location_id, bucket, device_id, upload, download)
                 select location_id, date_bin('1 hour', collected_at, timestamptz 'epoch'), device_id, sum(upload), sum(download) from device_stats group by 1, 2, 3`);
    await query("update stats_rollup_state set hour_from = (select max(id) + 1 from device_stats)");
    expect(await query("select 1 from stats_5min")).toHaveLength(0);
    // Meanwhile the series read those samples (ids from five_hi on) instead of the empty rollup.
    const start = new Date(Date.now() - 3 * 3600_000);
    const listed = (await locationUserStats(locations[0], start)).user_devices.flatMap((u) => u.devices);
    expect(deviceSeriesSource(deviceSeriesStep(3 * 3600, listed.length, true), true)).toBe("five");
    const raw = await query<{ id: number; up: number }>("select device_id id, sum(upload)::float8 up from device_stats group by 1");
    expect(raw).toHaveLength(DEVICES);
    const got = new Map(listed.map((d) => [d.id, d.stats.reduce((acc, p) => acc + p.upload, 0)]));
    for (const d of raw) expect(got.get(d.id)).toBe(d.up);
    // This version's job catches up, once.
    await rollHours();
    await rollHours();
    const [st] = await query<{ five_hi: string; hour_from: string }>("select five_hi::text, hour_from::text from stats_rollup_state");
    expect(st.five_hi).toBe(st.hour_from);
    await compareWithRaw();
  });
});

describe("retention", () => {
  it("prunes rollups with the samples and keeps what is inside the retention", async () => {
    await clearStats();
    const old = new Date(Date.now() - 40 * 86400_000);
    await ingestBatch(locations[0], [{ public_key: keys[0], endpoint: "", upload: 10, download: 10, latest_handshake: 0 }], old);
    await ingestBatch(locations[0], [{ public_key: keys[0], endpoint: "", upload: 25, download: 30, latest_handshake: 0 }]);
    await foldAll();
    expect(await query("select 1 from stats_minute")).toHaveLength(2);
    expect(await query("select 1 from stats_hour")).toHaveLength(2);
    expect(await query("select 1 from stats_5min")).toHaveLength(2);
    expect(await pruneStats()).toBe(4); // one sample, one minute, one hour, one 5 minutes
    expect(await query("select upload::int, download::int from stats_minute")).toEqual([{ upload: 15, download: 20 }]);
    expect(await query("select upload::int, download::int from stats_hour")).toEqual([{ upload: 15, download: 20 }]);
    expect(await query("select upload::int, download::int from stats_5min")).toEqual([{ upload: 15, download: 20 }]);
    await compareWithRaw();
  });
});

describe("per-device series step", () => {
  it("keeps at most 60 points per device and the point budget per answer", () => {
    for (const hours of [0.1, 0.5, 1, 3, 6, 12, 24, 24 * 7]) {
      for (const devices of [1, 10, 250, 1000, 5000, 10_000, 50_000]) {
        const w = hours * 3600;
        const step = deviceSeriesStep(w, devices);
        const points = Math.ceil(w / step) + 1;
        expect(points).toBeLessThanOrEqual(MAX_DEVICE_POINTS);
        if (step < 86400) expect(points * devices).toBeLessThanOrEqual(Math.max(DEVICE_POINT_BUDGET, devices * 2));
        // Below an hour only while the samples read stay few (120 per device and hour).
        if (step < 3600) expect(devices * 120 * hours).toBeLessThanOrEqual(250_000);
        // With stats_5min: the same limits; the samples only for 1-minute buckets, while few.
        const five = deviceSeriesStep(w, devices, true);
        expect(Math.ceil(w / five) + 1).toBeLessThanOrEqual(MAX_DEVICE_POINTS);
        expect(five).toBeLessThanOrEqual(step);
        if (deviceSeriesSource(five, true) === "samples") expect(devices * 120 * hours).toBeLessThanOrEqual(250_000);
      }
    }
    expect(deviceSeriesStep(1800, 1)).toBe(60);
    expect(deviceSeriesStep(86400, 1000)).toBeGreaterThanOrEqual(3600);
    // Six hours of 1,000 devices: whole hours from the samples' side, half hours from stats_5min.
    expect(deviceSeriesStep(6 * 3600, 1000)).toBe(3600);
    expect(deviceSeriesStep(6 * 3600, 1000, true)).toBe(1800);
    expect(deviceSeriesSource(1800, true)).toBe("five");
    expect(deviceSeriesSource(60, true)).toBe("samples");
    expect(deviceSeriesSource(300, false)).toBe("samples");
  });
});
