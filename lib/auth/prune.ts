import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../db";
import { THROTTLE_RETENTION_SECONDS } from "./throttle";

/**
 * Periodic clean-up of sign-in state (lib/jobs/runner.ts): expired sessions, failed attempts
 * and blocks older than the longest throttling window needs, and e-mail codes that expired or
 * were used. Returns how many rows each kind lost.
 */
export async function pruneAuthState(): Promise<Record<string, number>> {
  const db = getDb();
  const keep = THROTTLE_RETENTION_SECONDS;
  const run = async (q: ReturnType<typeof sql>) => (await db.execute(q)).rowCount ?? 0;
  return {
    sessions: await run(sql`delete from sessions where expires_at <= now()`),
    failures: await run(sql`delete from login_failures where at < now() - make_interval(secs => ${keep})`),
    lockouts: await run(sql`delete from login_lockouts where locked_until < now() - make_interval(secs => ${keep})`),
    blocks: await run(sql`delete from sign_in_blocks where blocked_until < now() - make_interval(secs => ${keep})`),
    emailCodes: await run(sql`delete from email_codes where expires_at <= now() or used_at is not null`),
  };
}
