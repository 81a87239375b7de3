import { sql } from "drizzle-orm";
import { getDb } from "../db";
import { pruneStats, updatePresence } from "./presence";
import { notifyGateways } from "../gateways/notifications";
import { pruneEnrollmentTokens } from "../enrollment/service";
import { pruneAuthState } from "../auth/prune";
import { pruneExpired as pruneOidcPayloads } from "../oidc/adapter";
import { describeError } from "../log-errors";

/**
 * Periodic jobs. Each tick runs a job inside a transaction-scoped advisory lock, so with
 * several console processes on one database each job runs once cluster-wide per tick.
 * (pg-boss's cron resolution is one minute; presence needs seconds, hence this small runner.)
 */
interface Job {
  id: number;
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
}

const JOBS: Job[] = [
  { id: 7_241_001, name: "presence", everyMs: 10_000, run: updatePresence },
  { id: 7_241_002, name: "stats-retention", everyMs: 3_600_000, run: pruneStats },
  { id: 7_241_003, name: "gateway-notifications", everyMs: 30_000, run: notifyGateways },
  { id: 7_241_004, name: "enrollment-token-retention", everyMs: 3_600_000, run: pruneEnrollmentTokens },
  { id: 7_241_005, name: "sign-in-state-retention", everyMs: 600_000, run: pruneAuthState },
  { id: 7_241_006, name: "oidc-retention", everyMs: 3_600_000, run: pruneOidcPayloads },
];

async function runOnce(job: Job): Promise<void> {
  await getDb().transaction(async (tx) => {
    const r = await tx.execute<{ ok: boolean }>(sql`select pg_try_advisory_xact_lock(${job.id}) ok`);
    if (!r.rows[0]?.ok) return;
    await job.run();
  });
}

export function startJobs(): () => void {
  const timers = JOBS.map((job) =>
    setInterval(() => {
      runOnce(job).catch((err) => console.error(`[jobs] ${job.name} failed:`, describeError(err)));
    }, job.everyMs),
  );
  return () => timers.forEach(clearInterval);
}
