import "server-only";
import { and, asc, eq, sql } from "drizzle-orm";
import { getDb } from "../db";
import { provisioningJobs, provisioningWorkers, users } from "../db/schema";
import { provisioningRetentionDays, secret } from "../config";
import { AppError, forbidden, notFound } from "../errors";
import { transaction } from "../events";
import { recordActivity, SYSTEM_ACTOR, type Actor } from "../activity/service";
import { addYubiKeyKeys, normaliseKey } from "../authkeys/service";
import { ISSUER, signJwt, verifyJwt } from "../gateways/jwt";
import { grpcUrl } from "../gateways/service";
import { parseId } from "../validation";
import { entitlement, licenceRequiredMessage } from "../enterprise/service";
import type { WorkerJobInput } from "./schema";

/**
 * YubiKey provisioning (docs/gateway-protocol.md, package worker): workers register over gRPC,
 * poll for jobs and report them done; admins list and remove workers; a job puts keys on a
 * YubiKey for a user, and its result becomes the user's SSH and GPG keys. Workers and jobs
 * are rows (not process memory), so every console process sharing the database sees them.
 */
export const WORKER_SUBJECT = "DEFGUARD-WORKER";
const TEN_YEARS = 10 * 365 * 24 * 3600;
/** A worker polls GetJob continuously; one not heard from for this long is shown unavailable. */
export const WORKER_CONNECTED_MS = 10_000;

export const MSG = {
  workerNotFound: "worker not found",
  userNotFound: "user not found",
  jobNotFound: "job not found",
  otherUser: "only admins can provision a YubiKey for another user",
  otherUsersJob: "this job belongs to another user",
} as const;

/** GET /worker/token: a worker JWT (HS256, DEFGUARD_YUBIBRIDGE_SECRET; sub DEFGUARD-WORKER, client_id the admin). */
export function workerToken(admin: string, nowSec = Math.floor(Date.now() / 1000)): string {
  return signJwt({ iss: ISSUER, sub: WORKER_SUBJECT, client_id: admin, exp: nowSec + TEN_YEARS, nbf: nowSec }, secret("workerSecret"));
}

/** GET /worker/token → {token, grpc_url} (defguard: {token}; the address is ours, for the docker command). */
export function workerTokenAnswer(admin: string) {
  return { token: workerToken(admin), grpc_url: grpcUrl() };
}

/** Whether a token is a worker token: signed with the worker secret and of the worker kind. */
export function isWorkerToken(token: string): boolean {
  const c = verifyJwt(token, secret("workerSecret"));
  return c !== null && c.sub === WORKER_SUBJECT;
}

// ------------------------------------------------------------------------------- gRPC side

export type WorkerCallResult<T> = { ok: true; value: T } | { ok: false; code: "ALREADY_EXISTS" | "NOT_FOUND" | "INVALID_ARGUMENT" | "PERMISSION_DENIED"; details: string };

/**
 * The licence gate of the worker gRPC calls (RegisterWorker, GetJob, SetJobDone): provisioning is
 * an enterprise feature, so while enterprise features are unavailable every call answers
 * PERMISSION_DENIED saying why, and nothing changes (workers, jobs and results stay as they are;
 * a pending job is handed out again once the licence allows). Null when calls may go on.
 */
export async function workerCallRefusal(): Promise<Extract<WorkerCallResult<never>, { ok: false }> | null> {
  const e = await entitlement();
  if (e.enterprise) return null;
  return { ok: false, code: "PERMISSION_DENIED", details: `YubiKey provisioning is paused: ${licenceRequiredMessage(e)}` };
}

const validWorkerId = (id: string) => typeof id === "string" && id.trim().length > 0 && id.length <= 64;

/** RegisterWorker: a new worker is recorded; one already known answers ALREADY_EXISTS (as defguard) and is marked seen. */
export async function registerWorker(id: string, ip: string | null): Promise<WorkerCallResult<null>> {
  if (!validWorkerId(id)) return { ok: false, code: "INVALID_ARGUMENT", details: "worker id must be 1-64 characters" };
  const r = await getDb()
    .insert(provisioningWorkers)
    .values({ id, ip, lastSeen: new Date() })
    .onConflictDoNothing()
    .returning({ id: provisioningWorkers.id });
  if (!r.length) {
    await getDb().update(provisioningWorkers).set({ ip, lastSeen: new Date() }).where(eq(provisioningWorkers.id, id));
    return { ok: false, code: "ALREADY_EXISTS", details: "worker already registered" };
  }
  return { ok: true, value: null };
}

export interface WorkerJob {
  first_name: string;
  last_name: string;
  email: string;
  job_id: number;
}

/** GetJob: marks the worker seen; its oldest pending job, or NOT_FOUND "no more jobs". */
export async function nextJob(id: string, ip: string | null): Promise<WorkerCallResult<WorkerJob>> {
  const seen = await getDb().update(provisioningWorkers).set({ ip, lastSeen: new Date() }).where(eq(provisioningWorkers.id, id)).returning({ id: provisioningWorkers.id });
  if (!seen.length) return { ok: false, code: "NOT_FOUND", details: "worker not registered" };
  const [job] = await getDb()
    .select({ id: provisioningJobs.id, first_name: users.firstName, last_name: users.lastName, email: users.email })
    .from(provisioningJobs)
    .innerJoin(users, eq(users.id, provisioningJobs.userId))
    .where(and(eq(provisioningJobs.workerId, id), eq(provisioningJobs.state, "pending")))
    .orderBy(asc(provisioningJobs.id))
    .limit(1);
  if (!job) return { ok: false, code: "NOT_FOUND", details: "no more jobs" };
  return { ok: true, value: { first_name: job.first_name, last_name: job.last_name, email: job.email, job_id: job.id } };
}

export interface JobStatusMessage {
  id: string;
  job_id: number;
  success: boolean;
  public_key: string;
  ssh_key: string;
  yubikey_serial: string;
  error: string;
}

const workerActor = (worker: string, ip: string | null): Actor => ({ userId: null, username: `worker ${worker}`.slice(0, 80), ip });

/**
 * SetJobDone: the job of this worker is settled once. Success stores the YubiKey and its SSH
 * and GPG keys for the user (lib/authkeys) and queues the user_keys webhook, in one
 * transaction; keys that do not parse make the job failed instead. Unknown jobs are ignored
 * (defguard answers Ok as well).
 */
export async function jobDone(s: JobStatusMessage, ip: string | null): Promise<void> {
  await transaction(async (tx, emit) => {
    const [job] = await tx
      .select({ id: provisioningJobs.id, userId: provisioningJobs.userId, username: users.username, email: users.email })
      .from(provisioningJobs)
      .innerJoin(users, eq(users.id, provisioningJobs.userId))
      .where(and(eq(provisioningJobs.id, s.job_id), eq(provisioningJobs.workerId, s.id), eq(provisioningJobs.state, "pending")))
      .for("update", { of: provisioningJobs });
    if (!job) return;
    await tx.update(provisioningWorkers).set({ lastSeen: new Date() }).where(eq(provisioningWorkers.id, s.id));
    const actor = workerActor(s.id, ip);
    const serial = (s.yubikey_serial ?? "").slice(0, 64);
    if (!s.success) {
      await tx.update(provisioningJobs).set({ state: "failed", error: (s.error || "provisioning failed").slice(0, 1000), yubikeySerial: serial || null, finishedAt: new Date() }).where(eq(provisioningJobs.id, job.id));
      await recordActivity(tx, actor, { event: "yubikey_provisioning_failed", description: `YubiKey provisioning for ${job.username} failed: ${(s.error || "no reason given").slice(0, 200)}` });
      return;
    }
    try {
      normaliseKey("ssh", s.ssh_key ?? "");
      normaliseKey("gpg", s.public_key ?? "");
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      await tx.update(provisioningJobs).set({ state: "failed", error: `the worker sent a key that is not valid: ${err.msg}`.slice(0, 1000), yubikeySerial: serial || null, finishedAt: new Date() }).where(eq(provisioningJobs.id, job.id));
      await recordActivity(tx, actor, { event: "yubikey_provisioning_failed", description: `YubiKey provisioning for ${job.username} failed: invalid key from the worker` });
      return;
    }
    const stored = await addYubiKeyKeys(tx, job.userId, { serial, ssh: s.ssh_key, gpg: s.public_key });
    await tx.update(provisioningJobs).set({ state: "done", yubikeySerial: serial, finishedAt: new Date() }).where(eq(provisioningJobs.id, job.id));
    await recordActivity(tx, actor, { event: "authentication_key_added", description: `Added SSH and GPG keys of ${stored.name} (serial ${serial}) of ${job.username}, provisioned by worker ${s.id}` });
    emit({
      type: "user.keys",
      userId: job.userId,
      username: job.username,
      keys: { username: job.username, email: job.email, ssh_key: stored.ssh, pgp_key: stored.gpg, serial },
    });
  });
}

// ------------------------------------------------------------------------------- REST side

/** GET /worker: [{id, ip, connected}] (defguard's WorkerDetail), by name. */
export async function listWorkers() {
  const rows = await getDb().select().from(provisioningWorkers).orderBy(asc(provisioningWorkers.id));
  const now = Date.now();
  return rows.map((w) => ({
    id: w.id,
    ip: w.ip ?? "0.0.0.0",
    connected: !!w.lastSeen && now - w.lastSeen.getTime() < WORKER_CONNECTED_MS,
  }));
}

/** DELETE /worker/{id}: forgets the worker and its pending jobs. */
export async function removeWorker(actor: Actor, id: string): Promise<void> {
  await transaction(async (tx) => {
    const r = await tx.delete(provisioningWorkers).where(eq(provisioningWorkers.id, id)).returning({ id: provisioningWorkers.id });
    if (!r.length) throw notFound(MSG.workerNotFound);
    await recordActivity(tx, actor, { event: "provisioning_worker_removed", description: `Removed YubiKey provisioning worker ${id}` });
  });
}

/** POST /worker/job {worker, username} → 201 {id}. Users may provision only for themselves. */
export async function createJob(actor: Actor, caller: { username: string; isAdmin: boolean }, input: WorkerJobInput): Promise<{ id: number }> {
  return transaction(async (tx) => {
    const [u] = await tx.select({ id: users.id, username: users.username }).from(users).where(sql`lower(${users.username}) = lower(${input.username})`);
    if (!u) throw notFound(MSG.userNotFound);
    if (!caller.isAdmin && u.username !== caller.username) throw forbidden(MSG.otherUser);
    const [w] = await tx.select({ id: provisioningWorkers.id }).from(provisioningWorkers).where(eq(provisioningWorkers.id, input.worker));
    if (!w) throw notFound(MSG.workerNotFound);
    const [job] = await tx.insert(provisioningJobs).values({ workerId: w.id, userId: u.id }).returning({ id: provisioningJobs.id });
    await recordActivity(tx, actor, { event: "yubikey_provisioning_started", description: `Started YubiKey provisioning for ${u.username} on worker ${w.id} (job ${job.id})` });
    return { id: job.id };
  });
}

export type JobState = { state: "pending" } | { state: "done"; success: true; serial: string; error: "" } | { state: "failed"; message: string };

/**
 * GET /worker/{job_id}. defguard answers `null` while the job is pending, `{success: true,
 * serial, error: ""}` once done, 404 `{message}` when it failed (the route writes these).
 */
export async function jobStatus(caller: { userId: number; isAdmin: boolean }, rawId: string): Promise<JobState> {
  const id = parseId(rawId);
  const [job] = await getDb().select().from(provisioningJobs).where(eq(provisioningJobs.id, id));
  if (!job) throw notFound(MSG.jobNotFound);
  if (!caller.isAdmin && job.userId !== caller.userId) throw forbidden(MSG.otherUsersJob);
  if (job.state === "pending") return { state: "pending" };
  if (job.state === "done") return { state: "done", success: true, serial: job.yubikeySerial ?? "", error: "" };
  return { state: "failed", message: job.error ?? "provisioning failed" };
}

// ------------------------------------------------------------------------------- clean-up

/**
 * The provisioning clean-up job (lib/jobs/runner.ts, "provisioning-retention"): finished jobs
 * (done or failed) older than DEFGUARD_PROVISIONING_JOB_RETENTION_DAYS are removed (the keys
 * they produced stay: they are the user's authentication keys), and stations not heard from for
 * DEFGUARD_PROVISIONING_WORKER_RETENTION_DAYS are forgotten with their jobs, each with an
 * activity-log entry. `0` keeps either forever. While enterprise features are unavailable no
 * station is forgotten: their calls are refused then, so their silence says nothing.
 */
export async function pruneProvisioning(days = provisioningRetentionDays()): Promise<{ jobs: number; workers: string[] }> {
  let jobs = 0;
  if (days.jobs > 0) {
    const r = await getDb().execute(sql`
      delete from provisioning_jobs
       where state in ('done', 'failed') and coalesce(finished_at, created_at) < now() - make_interval(days => ${days.jobs})`);
    jobs = r.rowCount ?? 0;
  }
  if (days.workers <= 0 || !(await entitlement()).enterprise) return { jobs, workers: [] };
  const workers = await transaction(async (tx) => {
    const gone = await tx.execute<{ id: string }>(sql`
      delete from provisioning_workers
       where coalesce(last_seen, registered_at) < now() - make_interval(days => ${days.workers})
       returning id`);
    for (const { id } of gone.rows) {
      await recordActivity(tx, SYSTEM_ACTOR, {
        event: "provisioning_worker_removed",
        description: `Removed YubiKey provisioning worker ${id}: not seen for ${days.workers} days`,
      });
    }
    return gone.rows.map((w) => w.id);
  });
  return { jobs, workers };
}
