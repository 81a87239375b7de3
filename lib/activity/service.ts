import "server-only";
import { and, count, desc, eq, gte, ilike, lte, or, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import { containsPattern } from "../db/like";
import { getDb, type Tx } from "../db";
import { activityLog } from "../db/schema";
import type { ActivityQuery } from "./schema";
import type { ActivityEvent } from "./events";

/** Who did something: the signed-in user (or a system job) and where the request came from. */
export interface Actor {
  userId: number | null;
  username: string;
  ip: string | null;
  /** The name of the API token the request came with: recorded in the entry's description. */
  apiToken?: string;
}

export const SYSTEM_ACTOR: Actor = { userId: null, username: "system", ip: null };

export type Module = "defguard" | "client" | "enrollment" | "vpn";

export interface ActivityInput {
  event: ActivityEvent;
  module?: Module;
  description?: string | null;
  location?: string | null;
  device?: string | null;
}

/**
 * The one way to write the activity log. Call it with the transaction of the change
 * it describes, so the record exists exactly when the change does.
 */
export async function recordActivity(tx: Tx, actor: Actor, e: ActivityInput): Promise<void> {
  await tx.insert(activityLog).values(activityRow(actor, e));
}

/** One activity-log row: who did it (and with which API token), what, where. */
function activityRow(actor: Actor, e: ActivityInput) {
  return {
    userId: actor.userId,
    username: actor.username,
    ip: actor.ip,
    event: e.event,
    module: e.module ?? "defguard",
    description: withApiToken(e.description ?? null, actor.apiToken),
    location: e.location ?? null,
    device: e.device ?? null,
  };
}

/**
 * Many entries by one actor (bulk changes such as an LDAP sync that imports thousands of users,
 * or a bulk action), in the transaction of the change like recordActivity: one statement per
 * 5,000 entries, the rows passed as one JSON array (a VALUES list of 1,000 rows × 8 parameters
 * took ~0.25 s per 1,000 entries; this is several times faster), written in the given order.
 */
export async function recordActivities(tx: Tx, actor: Actor, entries: ActivityInput[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 5000) {
    const rows = entries.slice(i, i + 5000).map((e) => {
      const r = activityRow(actor, e);
      return { user_id: r.userId, username: r.username, ip: r.ip, event: r.event, module: r.module, description: r.description, location: r.location, device: r.device };
    });
    await tx.execute(sql`
      insert into activity_log (user_id, username, ip, event, module, description, location, device)
      select (e->>'user_id')::int, e->>'username', e->>'ip', e->>'event', e->>'module', e->>'description', e->>'location', e->>'device'
        from jsonb_array_elements(${JSON.stringify(rows)}::jsonb) with ordinality as x(e, ord)
       order by ord`);
  }
}

/** `… (API token "deploy")`: which token an admin's scripted change came with. */
function withApiToken(description: string | null, token: string | undefined): string | null {
  if (token === undefined) return description;
  const via = `API token "${token}"`;
  return description ? `${description} (${via})` : via;
}

export const ACTIVITY_PAGE_SIZE = 50;

/** GET /activity_log: admins see everything, other users only their own events. */
export async function listActivity(q: ActivityQuery, viewer: { userId: number; isAdmin: boolean }) {
  const where: SQL[] = [];
  if (!viewer.isAdmin) where.push(eq(activityLog.userId, viewer.userId));
  if (q.from) where.push(gte(activityLog.timestamp, q.from));
  if (q.until) where.push(lte(activityLog.timestamp, q.until));
  if (q.username?.length) where.push(or(...q.username.map((u) => eq(activityLog.username, u)))!);
  if (q.location?.length) where.push(or(...q.location.map((l) => eq(activityLog.location, l)))!);
  if (q.event?.length) where.push(or(...q.event.map((e) => eq(activityLog.event, e)))!);
  if (q.module?.length) where.push(or(...q.module.map((m) => eq(activityLog.module, m)))!);
  if (q.search) {
    const like = containsPattern(q.search);
    where.push(
      or(
        ilike(activityLog.username, like),
        ilike(activityLog.event, like),
        ilike(activityLog.description, like),
        ilike(activityLog.location, like),
        ilike(activityLog.device, like),
        ilike(activityLog.ip, like),
      )!,
    );
  }
  const cond = where.length ? and(...where) : undefined;
  const pageSize = q.page_size ?? ACTIVITY_PAGE_SIZE;
  const page = q.page ?? 1;
  const db = getDb();
  const [rows, [{ total }]] = await Promise.all([
    db
      .select()
      .from(activityLog)
      .where(cond)
      .orderBy(desc(activityLog.timestamp), desc(activityLog.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
    db.select({ total: count() }).from(activityLog).where(cond),
  ]);
  const totalPages = Math.max(1, Math.ceil(total / pageSize));
  return {
    data: rows.map((r) => ({
      id: r.id,
      timestamp: r.timestamp.toISOString(),
      user_id: r.userId,
      username: r.username,
      location: r.location,
      ip: r.ip,
      event: r.event,
      module: r.module,
      device: r.device,
      description: r.description,
    })),
    pagination: {
      current_page: page,
      page_size: pageSize,
      total_items: total,
      total_pages: totalPages,
      next_page: page < totalPages ? page + 1 : null,
    },
  };
}

/** Distinct values for the log's filter pickers. */
export async function activityFilterValues(viewer: { userId: number; isAdmin: boolean }) {
  const own = viewer.isAdmin ? sql`true` : sql`${activityLog.userId} = ${viewer.userId}`;
  const distinct = async (col: AnyPgColumn) =>
    (
      await getDb()
        .selectDistinct({ v: col })
        .from(activityLog)
        .where(and(own, sql`${col} is not null`))
        .orderBy(col)
        .limit(500)
    ).map((r) => r.v as string);
  const [events, modules, usernames, locations] = await Promise.all([
    distinct(activityLog.event),
    distinct(activityLog.module),
    distinct(activityLog.username),
    distinct(activityLog.location),
  ]);
  return { events, modules, usernames, locations };
}
