import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { getDb } from "../db";
import type { ListUsersQuery } from "./schema";

/**
 * The full GET /user list, kept in the process and brought up to date entry by entry.
 *
 * Triggers keep every user's UserInfo as JSON text in `users_list_json` (from the `user_info`
 * view), stamp each entry with the users list version it was written at (migration 0021), and
 * bump that version (`list_versions`) in every transaction that changes users, groups or
 * memberships. This module holds each entry once, as UTF-8 bytes, and, per filter and sort, the
 * order of the ids and the assembled body:
 *
 * - version unchanged since the last request: the assembled body (one index lookup);
 * - version moved: the entries stamped above the version this process last saw (a change made
 *   by any console process, or by plain SQL, shows on the next request), plus the user count;
 *   the body is assembled again from the held entries;
 * - the order of a filter and sort is asked from PostgreSQL again (ids only, in the database's
 *   collation) only when a changed entry moved in it: a user added or removed, or a username,
 *   name or admin flag changed.
 *
 * The version, the changed entries and the count are read in one statement, so they come from
 * one snapshot: an entry stamped at or below the version read is always visible in it (the
 * stamp is taken under the version row's lock, see migration 0021).
 */

interface Entry {
  body: Buffer;
  /** What the filters and sorts read: a change in these may move the user in a list. */
  key: string;
}

interface View {
  /** The list version the order is current for (equal to `seen` when usable). */
  version: number;
  ids: number[];
  body: Buffer | null;
}

const entries = new Map<number, Entry>();
/** Ordered ids and assembled body per "filter:sort". */
const views = new Map<string, View>();
/** The users list version the held entries are current for; -1: nothing held yet. */
let seen = -1;
let userCount = -1;
/** One refresh at a time; concurrent requests wait for it. */
let refreshing: Promise<void> | null = null;

const OPEN = Buffer.from("[");
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

function entryOf(body: string): Entry {
  const u = JSON.parse(body) as { username: string; first_name: string; last_name: string; is_admin: boolean };
  return { body: Buffer.from(body, "utf8"), key: JSON.stringify([u.username, u.first_name, u.last_name, u.is_admin]) };
}

async function currentVersion(): Promise<number | null> {
  const r = await getDb().execute<{ version: number }>(sql`select version from list_versions where name = 'users'`);
  return r.rows[0]?.version ?? null;
}

/** Bring the held entries up to the current version; drop views whose order may have moved. */
async function refresh(): Promise<void> {
  const since = seen;
  const r = await getDb().execute<{ version: number | null; total: number; user_id: number | null; body: string | null }>(sql`
    select v.version, (select count(*)::int from users_list_json) total, j.user_id, j.body
    from (select (select version from list_versions where name = 'users') version) v
    left join users_list_json j on j.stamp > ${since}`);
  const version = r.rows[0].version;
  const total = r.rows[0].total;
  let moved = since < 0 || total !== userCount;
  for (const row of r.rows) {
    if (row.user_id === null || row.body === null) continue;
    const id = Number(row.user_id);
    const next = entryOf(row.body);
    const prev = entries.get(id);
    if (!prev || prev.key !== next.key) moved = true;
    entries.set(id, next);
  }
  userCount = total;
  seen = version ?? -1;
  if (moved) views.clear();
  else
    for (const v of views.values()) {
      v.version = seen;
      v.body = null;
    }
}

function filterSql(filter: ListUsersQuery["filter"]): SQL {
  const isAdmin = sql`exists (select 1 from group_users gu join groups gr on gr.id = gu.group_id where gu.user_id = u.id and gr.is_admin)`;
  return filter === "admins" ? isAdmin : filter === "users" ? sql`not ${isAdmin}` : sql`true`;
}

/** The ids of a filter and sort in order, with the list version they were read at. */
async function orderedIds(q: ListUsersQuery, order: SQL): Promise<{ version: number | null; ids: number[] }> {
  const r = await getDb().execute<{ version: number | null; ids: string | null }>(sql`
    select (select version from list_versions where name = 'users') version,
      (select string_agg(u.id::text, ',' order by ${order}) from users u where ${filterSql(q.filter)}) ids`);
  const text = r.rows[0].ids;
  return { version: r.rows[0].version, ids: text ? text.split(",").map(Number) : [] };
}

/** Entries an order names that this process does not hold yet (created after the last refresh). */
async function fetchMissing(ids: number[]): Promise<void> {
  const missing = ids.filter((id) => !entries.has(id));
  if (!missing.length) return;
  const r = await getDb().execute<{ user_id: number; body: string }>(
    sql`select user_id, body from users_list_json where user_id = any(${sql.param(missing)}::int[])`,
  );
  for (const row of r.rows) entries.set(Number(row.user_id), entryOf(row.body));
}

function assemble(ids: number[]): Buffer {
  const parts: Buffer[] = [OPEN];
  for (const id of ids) {
    const e = entries.get(id);
    if (!e) continue; // removed between the order and its entries: the next version drops it
    if (parts.length > 1) parts.push(COMMA);
    parts.push(e.body);
  }
  parts.push(CLOSE);
  return Buffer.concat(parts);
}

/** Drop entries of users no longer in the full list (only known from the unfiltered order). */
function prune(allIds: number[]) {
  if (entries.size <= allIds.length) return;
  const keep = new Set(allIds);
  for (const id of entries.keys()) if (!keep.has(id)) entries.delete(id);
}

/**
 * GET /user (no search, no paging) as JSON bytes. `order` is the ORDER BY over `users u` of the
 * requested sort.
 */
export async function cachedUsersList(q: ListUsersQuery, order: SQL): Promise<Buffer> {
  const key = `${q.filter ?? "all"}:${q.sort ?? "username"}`;
  const version = await currentVersion();
  if (version === null) throw new Error("list_versions has no 'users' row");
  const held = views.get(key);
  if (held?.body && held.version === version && seen === version) return held.body;
  // A change committing between the statements below makes the versions disagree: catch up
  // and read again (three tries; then the answer is built from what was read, as before).
  for (let attempt = 0; ; attempt++) {
    if (version !== seen || attempt > 0) await catchUp();
    let view = views.get(key);
    if (!view || view.version !== seen) {
      const read = await orderedIds(q, order);
      await fetchMissing(read.ids);
      if (read.version !== seen && attempt < 2) continue;
      if (!q.filter) prune(read.ids);
      view = { version: seen, ids: read.ids, body: null };
      views.set(key, view);
    }
    if (!view.body) view.body = assemble(view.ids);
    return view.body;
  }
}

function catchUp(): Promise<void> {
  refreshing ??= refresh().finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** For tests: forget everything held (as a freshly started process). */
export function resetUsersListCache() {
  entries.clear();
  views.clear();
  seen = -1;
  userCount = -1;
}
