import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../db";

/**
 * The stale-access report: access that nobody uses any more and that an administrator should
 * look at. "Stale" means: nothing happened for `days` days, and the object is older than that
 * (something created yesterday is not stale). Read-only, straight from the database.
 *
 * - users: active, no sign-in (activity `user_login`) and no VPN handshake on any of their
 *   devices within the window;
 * - devices: no handshake in any location within the window (never connected counts);
 * - admins without MFA: active members of an admin group without a second factor (any age);
 * - API tokens: not used within the window (never used counts);
 * - groups granting locations to nobody: groups allowed in at least one location that have no
 *   active member.
 */
export interface StaleAccessReport {
  days: number;
  generated_at: string;
  users: { id: number; username: string; name: string; email: string; created_at: string; last_sign_in: string | null; last_handshake: string | null; is_admin: boolean }[];
  devices: { id: number; name: string; device_type: "user" | "network"; owner: string; created_at: string; last_handshake: string | null; locations: string[] }[];
  admins_without_mfa: { id: number; username: string; email: string; last_sign_in: string | null }[];
  api_tokens: { id: number; name: string; owner: string; created_at: string; last_used_at: string | null }[];
  groups_without_members: { id: number; name: string; locations: string[] }[];
}

const iso = (col: string) => sql.raw(`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`);

export async function staleAccess(days: number): Promise<StaleAccessReport> {
  const db = getDb();
  const cutoff = sql`now() - make_interval(days => ${days})`;
  const isAdmin = sql`exists (select 1 from group_users gu join groups g on g.id = gu.group_id where gu.user_id = u.id and g.is_admin)`;
  const lastLogin = sql`(select max(a.timestamp) from activity_log a where a.user_id = u.id and a.event = 'user_login')`;
  const [users, devices, admins, tokens, emptyGroups, now] = await Promise.all([
    db.execute<StaleAccessReport["users"][number]>(sql`
      select id, username, name, email, ${iso("created_at")} created_at, ${iso("last_sign_in")} last_sign_in,
             ${iso("last_handshake")} last_handshake, is_admin
        from (select u.id, u.username, trim(u.first_name || ' ' || u.last_name) name, u.email, u.created_at,
                     ${lastLogin} last_sign_in,
                     (select max(dl.last_handshake) from devices d join device_locations dl on dl.device_id = d.id where d.user_id = u.id and d.device_type = 'user') last_handshake,
                     ${isAdmin} is_admin
                from users u
               where u.is_active and u.created_at < ${cutoff}) x
       where coalesce(last_sign_in, '-infinity') < ${cutoff} and coalesce(last_handshake, '-infinity') < ${cutoff}
       order by greatest(last_sign_in, last_handshake) asc nulls first, lower(username)`),
    db.execute<StaleAccessReport["devices"][number]>(sql`
      select d.id, d.name, d.device_type, u.username owner, ${iso("d.created_at")} created_at,
             ${iso("max(dl.last_handshake)")} last_handshake,
             coalesce(array_agg(l.name order by l.name) filter (where l.name is not null), '{}') locations
        from devices d
        join users u on u.id = d.user_id
        left join device_locations dl on dl.device_id = d.id
        left join locations l on l.id = dl.location_id
       where d.created_at < ${cutoff}
       group by d.id, u.username
      having coalesce(max(dl.last_handshake), '-infinity') < ${cutoff}
       order by max(dl.last_handshake) asc nulls first, lower(d.name), d.id`),
    db.execute<StaleAccessReport["admins_without_mfa"][number]>(sql`
      select u.id, u.username, u.email, ${iso(`(select max(a.timestamp) from activity_log a where a.user_id = u.id and a.event = 'user_login')`)} last_sign_in
        from users u
       where u.is_active and not u.mfa_enabled and ${isAdmin}
       order by lower(u.username)`),
    db.execute<StaleAccessReport["api_tokens"][number]>(sql`
      select t.id, t.name, u.username owner, ${iso("t.created_at")} created_at, ${iso("t.last_used_at")} last_used_at
        from api_tokens t join users u on u.id = t.user_id
       where t.created_at < ${cutoff} and coalesce(t.last_used_at, '-infinity') < ${cutoff}
       order by t.last_used_at asc nulls first, lower(u.username), t.id`),
    db.execute<StaleAccessReport["groups_without_members"][number]>(sql`
      select g.id, g.name, array_agg(l.name order by l.name) locations
        from groups g
        join location_allowed_groups lg on lg.group_id = g.id
        join locations l on l.id = lg.location_id
       where not exists (select 1 from group_users gu join users u on u.id = gu.user_id where gu.group_id = g.id and u.is_active)
       group by g.id
       order by lower(g.name)`),
    db.execute<{ now: string }>(sql`select ${iso("now()")} now`),
  ]);
  return {
    days,
    generated_at: now.rows[0].now,
    users: users.rows,
    devices: devices.rows,
    admins_without_mfa: admins.rows,
    api_tokens: tokens.rows,
    groups_without_members: emptyGroups.rows,
  };
}

/** One CSV cell (RFC 4180), with spreadsheet formula injection defused. */
function cell(v: unknown): string {
  let s = v === null || v === undefined ? "" : Array.isArray(v) ? v.join("; ") : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/**
 * The report as one CSV table: a `kind` column says which list a row belongs to, then the
 * columns every list shares (id, name, owner/e-mail, dates).
 */
export function staleAccessCsv(r: StaleAccessReport): string {
  const rows: unknown[][] = [["kind", "id", "name", "owner_or_email", "created_at", "last_activity", "details"]];
  for (const u of r.users) rows.push(["user", u.id, u.username, u.email, u.created_at, [u.last_sign_in, u.last_handshake].filter(Boolean).sort().pop() ?? "", u.is_admin ? "admin" : ""]);
  for (const d of r.devices) rows.push(["device", d.id, d.name, d.owner, d.created_at, d.last_handshake ?? "", [d.device_type, ...d.locations].join("; ")]);
  for (const a of r.admins_without_mfa) rows.push(["admin_without_mfa", a.id, a.username, a.email, "", a.last_sign_in ?? "", ""]);
  for (const t of r.api_tokens) rows.push(["api_token", t.id, t.name, t.owner, t.created_at, t.last_used_at ?? "", ""]);
  for (const g of r.groups_without_members) rows.push(["group_without_members", g.id, g.name, "", "", "", g.locations]);
  return `${rows.map((row) => row.map(cell).join(",")).join("\r\n")}\r\n`;
}
