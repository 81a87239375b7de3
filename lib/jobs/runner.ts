import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../db";
import { pruneStats, updatePresence } from "./presence";
import { backfillRollups, rollHours } from "../stats/rollups";
import { expireRules } from "../acl/service";
import { notifyGateways } from "../gateways/notifications";
import { pruneEnrollmentTokens } from "../enrollment/service";
import { endIdleMfaSessions } from "../clientmfa/service";
import { pruneAuthState } from "../auth/prune";
import { pruneExpired as pruneOidcPayloads } from "../oidc/adapter";
import { aclExpiryInterval } from "../config";
import { describeError } from "../log-errors";
import { metrics } from "../metrics";
import { pruneOutbox, setStreamGate, startOutboxWorker } from "../outbox/worker";
import { streamDeliveryAllowed } from "../webhooks/streams";
import { directorySyncJob } from "../extid/directory/sync";
import { ldapSyncJob } from "../ldap/sync";
import { pruneProvisioning } from "../provisioning/service";
import { gatewaySyncJob } from "../gateways/sync";

/**
 * Periodic jobs: an interval timer per job in every console process. A tick runs the job
 * only if it wins a transaction-scoped advisory lock, so a job never runs twice at the same
 * time across processes. Ticks of different processes are not aligned: with N processes a
 * job may run up to N times per interval, so every job here is idempotent (it recomputes
 * state or deletes what is old). Why this and not a queue library: docs/architecture.md, "Jobs".
 */
interface Job {
  id: number;
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
}

/** The jobs, with intervals read from the environment at start-up. */
const jobs = (): Job[] => [
  { id: 7_241_001, name: "presence", everyMs: 10_000, run: updatePresence },
  { id: 7_241_002, name: "stats-retention", everyMs: 3_600_000, run: pruneStats },
  { id: 7_241_003, name: "gateway-notifications", everyMs: 30_000, run: notifyGateways },
  { id: 7_241_004, name: "enrollment-token-retention", everyMs: 3_600_000, run: pruneEnrollmentTokens },
  { id: 7_241_005, name: "sign-in-state-retention", everyMs: 600_000, run: pruneAuthState },
  { id: 7_241_006, name: "oidc-retention", everyMs: 3_600_000, run: pruneOidcPayloads },
  { id: 7_241_007, name: "outbox-retention", everyMs: 600_000, run: pruneOutbox },
  // Applied ACL rules past their expiry become "expired" and leave the gateways' firewalls
  // within one interval (DEFGUARD_ACL_EXPIRY_INTERVAL seconds, default 30).
  { id: 7_241_008, name: "acl-expiry", everyMs: aclExpiryInterval() * 1000, run: async () => void (await expireRules()) },
  // MFA sessions of VPN locations end after peer_disconnect_threshold without a handshake (peer and PSK gone).
  { id: 7_241_010, name: "client-mfa-sessions", everyMs: 10_000, run: endIdleMfaSessions },
  // External directory (Google, Entra ID, Okta, JumpCloud): due when its own interval has passed.
  { id: 7_241_013, name: "directory-sync", everyMs: 30_000, run: directorySyncJob },
  // Two-way LDAP sync: the tick is short, the job itself waits for the configured sync interval
  // (settings ldap_sync_interval) and does nothing unless LDAP and its sync are enabled.
  { id: 7_241_014, name: "ldap-sync", everyMs: 10_000, run: ldapSyncJob },
  // Samples written before the stats rollups existed (migration 0026), folded in a chunk per run.
  { id: 7_241_015, name: "stats-rollup-backfill", everyMs: 15_000, run: backfillRollups },
  // Samples into the per-device rollups (stats_hour, stats_5min), a few seconds behind the ingest.
  { id: 7_241_016, name: "stats-hour-rollup", everyMs: 20_000, run: rollHours },
  // YubiKey provisioning: finished jobs and stations not seen for N days (docs/gateway-protocol.md).
  { id: 7_241_009, name: "provisioning-retention", everyMs: 3_600_000, run: pruneProvisioning },
  // Gateway drift that outlived its repair is repaired again; revision times and propagation samples older than a day go.
  { id: 7_241_011, name: "gateway-sync", everyMs: 30_000, run: gatewaySyncJob },
];

/**
 * Run `job` if no console process ran it during the last interval: the advisory lock keeps two
 * runs from overlapping, and job_runs (claimed in the same transaction) keeps processes whose
 * timers fire at different moments from running it again within one interval. Returns whether
 * this call ran it. A failed run rolls the claim back, so the next tick anywhere retries.
 */
export async function runJobOnce(job: Pick<Job, "id" | "name" | "everyMs" | "run">): Promise<boolean> {
  return getDb().transaction(async (tx) => {
    const r = await tx.execute<{ ok: boolean }>(sql`select pg_try_advisory_xact_lock(${job.id}) ok`);
    if (!r.rows[0]?.ok) return false;
    // 10 % slack: a timer firing a little early must not skip a whole interval.
    const claimed = await tx.execute(sql`
      insert into job_runs (name, last_run_at) values (${job.name}, now())
      on conflict (name) do update set last_run_at = now()
        where job_runs.last_run_at <= now() - make_interval(secs => ${(job.everyMs * 0.9) / 1000})
      returning name`);
    if (!claimed.rows.length) return false;
    metrics().jobRuns.inc({ job: job.name });
    await job.run();
    return true;
  });
}

export function startJobs(): () => void {
  // Webhook and log-stream deliveries: not an interval job (claims with SKIP LOCKED share the
  // work between processes; lib/outbox/worker.ts), started and stopped with the jobs.
  // Log streams are an enterprise feature: their delivery pauses while it is unavailable.
  setStreamGate(streamDeliveryAllowed);
  const stopOutbox = startOutboxWorker();
  const timers = jobs().map((job) =>
    setInterval(() => {
      runJobOnce(job).catch((err) => {
        metrics().jobFailures.inc({ job: job.name });
        console.error(`[jobs] ${job.name} failed:`, describeError(err));
      });
    }, job.everyMs),
  );
  return () => {
    stopOutbox();
    timers.forEach(clearInterval);
  };
}
