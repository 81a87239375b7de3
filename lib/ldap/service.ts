import "server-only";
import { eq } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { ldapSyncState } from "../db/schema";
import { getSettings, type Settings } from "../settings/service";
import { classify, hostOf, ldapConfig, LdapFailure, missingSetting, openBound, openClient, probe, type LdapErrorKind } from "./client";

export interface StepResult {
  ok: boolean;
  /** What failed, in words (absent on success). */
  msg?: string;
  kind?: LdapErrorKind;
}

export interface LdapTestResult {
  ok: boolean;
  /** The first failure's message (absent on success). */
  msg?: string;
  kind?: LdapErrorKind;
  connect: StepResult;
  bind: StepResult;
  search: StepResult & { users?: number; groups?: number };
}

const SKIPPED: StepResult = { ok: false, msg: "not tried: an earlier step failed" };

function failed(err: unknown, step: "connect" | "bind" | "search", where: string): StepResult {
  const f = classify(err, step, where);
  return { ok: false, msg: f.message, kind: f.kind };
}

/**
 * GET /ldap/test: reach the server (TCP or TLS; StartTLS when set), bind with the bind DN and
 * password, then count users and groups under the search bases. Each step is reported
 * separately; the first failure is also the answer's `msg`. Uses the stored settings.
 */
export async function testLdapConnection(s?: Settings): Promise<LdapTestResult> {
  s ??= await getSettings();
  const missing = missingSetting(s);
  if (missing) {
    const step = { ok: false, msg: missing, kind: "not_configured" as const };
    return { ok: false, msg: missing, kind: "not_configured", connect: step, bind: SKIPPED, search: SKIPPED };
  }
  let cfg;
  try {
    cfg = ldapConfig(s);
  } catch (err) {
    const f = err instanceof LdapFailure ? err : new LdapFailure("not_configured", String(err));
    const step = { ok: false, msg: f.message, kind: f.kind };
    return { ok: false, msg: f.message, kind: f.kind, connect: step, bind: SKIPPED, search: SKIPPED };
  }
  const where = hostOf(cfg);
  const result: LdapTestResult = { ok: false, connect: SKIPPED, bind: SKIPPED, search: SKIPPED };
  const finish = (r: LdapTestResult) => {
    const first = [r.connect, r.bind, r.search].find((x) => !x.ok);
    return first ? { ...r, ok: false, msg: first.msg, kind: first.kind } : { ...r, ok: true };
  };
  try {
    await probe(cfg);
  } catch (err) {
    result.connect = failed(err, "connect", where);
    return finish(result);
  }
  let client;
  try {
    client = await openClient(cfg);
    result.connect = { ok: true };
  } catch (err) {
    result.connect = failed(err, "connect", where);
    return finish(result);
  }
  try {
    await client.bind(cfg.bindDn, cfg.bindPassword);
    result.bind = { ok: true };
  } catch (err) {
    await client.unbind().catch(() => {});
    result.bind = failed(err, "bind", where);
    return finish(result);
  }
  try {
    const count = async (base: string, objectClass: string) => {
      let n = 0;
      for await (const page of client.searchPaginated(base, { scope: "sub", filter: `(objectClass=${objectClass})`, attributes: ["1.1"], paged: { pageSize: 1000 } })) {
        n += page.searchEntries.length;
      }
      return n;
    };
    const n = await count(cfg.userSearchBase, cfg.userObjClass);
    const groups = await count(cfg.groupSearchBase, cfg.groupObjClass);
    result.search = n
      ? { ok: true, users: n, groups }
      : { ok: false, kind: "no_users", msg: `no users matched: no entry of class ${cfg.userObjClass} under ${cfg.userSearchBase}`, users: 0, groups };
  } catch (err) {
    result.search = failed(err, "search", where);
  } finally {
    await client.unbind().catch(() => {});
  }
  return finish(result);
}

/** A bound service connection, or an LdapFailure saying why not. */
export async function connectService(s: Settings) {
  const cfg = ldapConfig(s);
  await probe(cfg);
  return { cfg, client: await openBound(cfg) };
}

export interface LdapStatus {
  enabled: boolean;
  sync_enabled: boolean;
  configured: boolean;
  /** Why LDAP is not configured (absent when it is). */
  missing?: string;
  last_run_at: string | null;
  last_success_at: string | null;
  last_ok: boolean | null;
  last_error_kind: string | null;
  last_error: string | null;
  last_summary: Record<string, number> | null;
  interval_seconds: number;
}

export async function readSyncState(tx: Tx = getDb()) {
  const [row] = await tx.select().from(ldapSyncState).where(eq(ldapSyncState.id, 1));
  return row ?? null;
}

/** GET /ldap/status: configuration state and the last sync's time, result and error. */
export async function ldapStatus(): Promise<LdapStatus> {
  const [s, st] = await Promise.all([getSettings(), readSyncState()]);
  const missing = missingSetting(s);
  return {
    enabled: s.ldapEnabled,
    sync_enabled: s.ldapSyncEnabled,
    configured: !missing,
    ...(missing ? { missing } : {}),
    last_run_at: st?.lastRunAt?.toISOString() ?? null,
    last_success_at: st?.lastSuccessAt?.toISOString() ?? null,
    last_ok: st?.lastOk ?? null,
    last_error_kind: st?.lastErrorKind ?? null,
    last_error: st?.lastError ?? null,
    last_summary: st?.lastSummary ?? null,
    interval_seconds: s.ldapSyncInterval,
  };
}
