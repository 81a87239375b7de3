/**
 * The provisioning clean-up job (pruneProvisioning, lock id 7_241_009): finished jobs past the
 * retention are removed, pending and recent ones stay; stations silent for longer than theirs
 * are forgotten with an activity-log entry, but not while enterprise features are unavailable;
 * 0 keeps everything; the environment sets the days.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { provisioningRetentionDays } from "@/lib/config";
import { createUser, query, setLicence, testLicence } from "@/tests/helpers";
import { pruneProvisioning } from "./service";

let userId: number;

beforeEach(async () => {
  await query("delete from provisioning_workers");
  userId ??= (await createUser({ username: "ret-user" })).id;
  // Stations: silent for 40 days, seen yesterday, registered 40 days ago and never seen, registered now.
  await query(`insert into provisioning_workers (id, ip, last_seen, registered_at) values
    ('old', '192.0.2.1', now() - interval '40 days', now() - interval '60 days'),
    ('recent', '192.0.2.2', now() - interval '1 day', now() - interval '60 days'),
    ('never', null, null, now() - interval '40 days'),
    ('fresh', null, null, now())`);
  await query(
    `insert into provisioning_jobs (worker_id, user_id, state, created_at, finished_at) values
      ('recent', $1, 'done', now() - interval '41 days', now() - interval '40 days'),
      ('recent', $1, 'failed', now() - interval '41 days', now() - interval '40 days'),
      ('recent', $1, 'done', now() - interval '2 days', now() - interval '1 day'),
      ('recent', $1, 'pending', now() - interval '40 days', null),
      ('old', $1, 'pending', now() - interval '40 days', null)`,
    [userId],
  );
});

afterEach(async () => {
  await setLicence(testLicence());
  delete process.env.DEFGUARD_PROVISIONING_JOB_RETENTION_DAYS;
  delete process.env.DEFGUARD_PROVISIONING_WORKER_RETENTION_DAYS;
});

const jobsLeft = async () =>
  (await query<{ w: string; state: string; age: number }>("select worker_id w, state, extract(day from now() - created_at)::int age from provisioning_jobs order by id")).map(
    (j) => `${j.w}:${j.state}:${j.age}`,
  );
const workersLeft = async () => (await query<{ id: string }>("select id from provisioning_workers order by id")).map((w) => w.id);

describe("provisioning clean-up", () => {
  it("removes finished jobs and silent stations past the retention, with an activity entry per station", async () => {
    const before = (await query<{ n: number }>("select count(*)::int n from activity_log where event = 'provisioning_worker_removed'"))[0].n;
    const r = await pruneProvisioning({ jobs: 30, workers: 30 });
    expect(r.jobs).toBe(2);
    expect(r.workers.sort()).toEqual(["never", "old"]);
    expect(await workersLeft()).toEqual(["fresh", "recent"]);
    // The pending job of the forgotten station went with it; recent and pending ones stay.
    expect(await jobsLeft()).toEqual(["recent:done:2", "recent:pending:40"]);
    const log = await query<{ description: string; username: string }>(
      "select description, username from activity_log where event = 'provisioning_worker_removed' order by id desc limit 2",
    );
    expect(log.map((l) => l.description).sort()).toEqual([
      "Removed YubiKey provisioning worker never: not seen for 30 days",
      "Removed YubiKey provisioning worker old: not seen for 30 days",
    ]);
    expect(log.every((l) => l.username === "system")).toBe(true);
    expect((await query<{ n: number }>("select count(*)::int n from activity_log where event = 'provisioning_worker_removed'"))[0].n).toBe(before + 2);
    // Idempotent: a second run finds nothing.
    expect(await pruneProvisioning({ jobs: 30, workers: 30 })).toEqual({ jobs: 0, workers: [] });
  });

  it("a longer retention keeps more; 0 keeps everything", async () => {
    expect(await pruneProvisioning({ jobs: 45, workers: 45 })).toEqual({ jobs: 0, workers: [] });
    expect(await pruneProvisioning({ jobs: 0, workers: 0 })).toEqual({ jobs: 0, workers: [] });
    expect(await workersLeft()).toEqual(["fresh", "never", "old", "recent"]);
    expect(await jobsLeft()).toHaveLength(5);
  });

  it("while enterprise features are unavailable, stations are kept (their calls are refused) but old jobs still go", async () => {
    await setLicence(null);
    const [{ n }] = await query<{ n: number }>("select count(*)::int n from users");
    for (let i = n; i <= 5; i++) await createUser({ username: `ret-extra${i}` });
    const r = await pruneProvisioning({ jobs: 30, workers: 30 });
    expect(r).toEqual({ jobs: 2, workers: [] });
    expect(await workersLeft()).toEqual(["fresh", "never", "old", "recent"]);
    await query("delete from users where username like 'ret-extra%'");
  });

  it("reads the days from the environment (default 30, 0 allowed, nonsense ignored)", async () => {
    expect(provisioningRetentionDays()).toEqual({ jobs: 30, workers: 30 });
    process.env.DEFGUARD_PROVISIONING_JOB_RETENTION_DAYS = "7";
    process.env.DEFGUARD_PROVISIONING_WORKER_RETENTION_DAYS = "0";
    expect(provisioningRetentionDays()).toEqual({ jobs: 7, workers: 0 });
    process.env.DEFGUARD_PROVISIONING_JOB_RETENTION_DAYS = "-1";
    process.env.DEFGUARD_PROVISIONING_WORKER_RETENTION_DAYS = "ten";
    expect(provisioningRetentionDays()).toEqual({ jobs: 30, workers: 30 });
    // The job reads them by default: with 45 days for jobs nothing is old enough.
    process.env.DEFGUARD_PROVISIONING_JOB_RETENTION_DAYS = "45";
    process.env.DEFGUARD_PROVISIONING_WORKER_RETENTION_DAYS = "0";
    expect(await pruneProvisioning()).toEqual({ jobs: 0, workers: [] });
    process.env.DEFGUARD_PROVISIONING_JOB_RETENTION_DAYS = "30";
    expect((await pruneProvisioning()).jobs).toBe(2);
  });
});
