/**
 * The stale-access report (GET /report/stale_access): which users, devices, API tokens and
 * groups it lists for a window of N days and which it leaves out, the same facts as CSV
 * (with spreadsheet formulas defused), API-token use recorded for it, bad input and access.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as reportGet } from "@/app/api/v1/report/stale_access/route";
import { GET as meGet } from "@/app/api/v1/me/route";
import { POST as tokensPost } from "@/app/api/v1/user/[username]/api_token/route";
import { call, createUser, query, signIn, type Jar } from "@/tests/helpers";

let admin: Jar;
let user: Jar;
const OLD = "now() - interval '200 days'";
const RECENT = "now() - interval '1 day'";

async function age(table: string, column: string, id: number, when: string) {
  await query(`update ${table} set ${column} = ${when} where id = $1`, [id]);
}

async function device(userId: number, name: string, type: "user" | "network", created: string, handshake: string | null, locationId: number) {
  const [d] = await query<{ id: number }>(
    `insert into devices (name, wireguard_pubkey, user_id, device_type, created_at) values ($1, $2, $3, $4, ${created}) returning id`,
    [name, `${name.replace(/[^A-Za-z0-9]/g, "x").padEnd(42, "A").slice(0, 42)}A=`, userId, type],
  );
  await query(`insert into device_locations (device_id, location_id, ips, last_handshake) values ($1, $2, $3, ${handshake ?? "null"})`, [d.id, locationId, [`203.0.113.${d.id % 250}`]]);
  return d.id;
}

const report = async (qs = "", jar = admin) => call(reportGet, { jar, path: `/api/v1/report/stale_access${qs}` });

let ids: Record<string, number> = {};

beforeAll(async () => {
  const a = await createUser({ username: "rep-admin", isAdmin: true });
  await createUser({ username: "rep-user" });
  admin = await signIn("rep-admin");
  user = await signIn("rep-user");
  const [loc] = await query<{ id: number }>(
    `insert into locations (name, address, port, endpoint, pubkey, prvkey_enc) values ('rep-loc', '{203.0.113.1/24}', 51820, '198.51.100.1', 'rep-pub', 'x') returning id`,
  );
  const idle = await createUser({ username: "rep-idle" });
  const signedIn = await createUser({ username: "rep-signedin" });
  const vpn = await createUser({ username: "rep-vpn" });
  const fresh = await createUser({ username: "rep-fresh" });
  const disabled = await createUser({ username: "rep-disabled", isActive: false, groups: ["rep-ghosts"] });
  await createUser({ username: "rep-member", groups: ["rep-team"] });
  for (const u of [idle, signedIn, vpn, disabled]) await age("users", "created_at", u.id, OLD);
  // rep-signedin signed in yesterday (the activity entry a sign-in writes).
  await query(`insert into activity_log (timestamp, user_id, username, event, module) values (${RECENT}, $1, 'rep-signedin', 'user_login', 'defguard')`, [signedIn.id]);
  ids = {
    admin: a.id,
    idle: idle.id,
    signedIn: signedIn.id,
    vpn: vpn.id,
    fresh: fresh.id,
    loc: loc.id,
    idleDev: await device(idle.id, "idle-laptop", "user", OLD, OLD, loc.id),
    vpnDev: await device(vpn.id, "busy-phone", "user", OLD, RECENT, loc.id),
    freshDev: await device(fresh.id, "new-tablet", "user", "now()", null, loc.id),
    router: await device(a.id, "=cmd|' /C calc'!A0", "network", OLD, null, loc.id),
  };
  // Groups allowed in the location: one with only a disabled member, one with an active member.
  await query(`insert into location_allowed_groups (location_id, group_id) select $1, id from groups where name in ('rep-ghosts', 'rep-team')`, [loc.id]);
});

describe("GET /report/stale_access", () => {
  it("lists what has been idle longer than the window, and nothing younger or in use", async () => {
    const r = await report("?days=90");
    expect(r.status, r.text).toBe(200);
    const users = (r.json.users as { username: string }[]).map((u) => u.username);
    expect(users).toContain("rep-idle");
    // Signed in yesterday, VPN handshake yesterday, created today, disabled: not stale.
    for (const u of ["rep-signedin", "rep-vpn", "rep-fresh", "rep-disabled", "rep-admin"]) expect(users, u).not.toContain(u);
    const idle = (r.json.users as { username: string; last_handshake: string | null; last_sign_in: string | null }[]).find((u) => u.username === "rep-idle")!;
    expect(idle.last_sign_in).toBeNull();
    expect(Date.now() - Date.parse(idle.last_handshake!)).toBeGreaterThan(199 * 86_400_000);

    const devices = r.json.devices as { id: number; name: string; device_type: string; owner: string; locations: string[]; last_handshake: string | null }[];
    expect(devices.map((d) => d.id).sort()).toEqual([ids.idleDev, ids.router].sort());
    expect(devices.find((d) => d.id === ids.router)).toMatchObject({ device_type: "network", owner: "rep-admin", locations: ["rep-loc"], last_handshake: null });

    expect((r.json.admins_without_mfa as { username: string }[]).map((a) => a.username)).toContain("rep-admin");
    const groups = r.json.groups_without_members as { name: string; locations: string[] }[];
    expect(groups).toEqual([expect.objectContaining({ name: "rep-ghosts", locations: ["rep-loc"] })]);
    expect(r.json.days).toBe(90);
  });

  it("a wider window leaves out what was active within it", async () => {
    const r = await report("?days=365");
    expect(r.status).toBe(200);
    // 200 days of idleness is not stale for a 365-day window.
    expect((r.json.users as { username: string }[]).map((u) => u.username)).not.toContain("rep-idle");
    expect(r.json.devices).toEqual([]);
  });

  it("admins with MFA are not listed as admins without it", async () => {
    await createUser({ username: "rep-admin-mfa", isAdmin: true, mfaEnabled: true });
    const r = await report();
    const names = (r.json.admins_without_mfa as { username: string }[]).map((a) => a.username);
    expect(names).toContain("rep-admin");
    expect(names).not.toContain("rep-admin-mfa");
  });

  it("API tokens: an old unused one is listed until it is used (use is recorded on the token)", async () => {
    const made = await call(tokensPost, { method: "POST", jar: admin, body: { name: "old ci" }, path: "/api/v1/user/rep-admin/api_token", params: { username: "rep-admin" } });
    expect(made.status, made.text).toBe(201);
    const [t] = await query<{ id: number }>("select id from api_tokens where name = 'old ci'");
    await age("api_tokens", "created_at", t.id, OLD);
    let r = await report();
    expect(r.json.api_tokens).toEqual([expect.objectContaining({ id: t.id, name: "old ci", owner: "rep-admin", last_used_at: null })]);

    const me = await call(meGet, { path: "/api/v1/me", headers: { authorization: `Bearer ${made.json.token}` } });
    expect(me.status, me.text).toBe(200);
    const [used] = await query<{ last_used_at: Date | null }>("select last_used_at from api_tokens where id = $1", [t.id]);
    expect(used.last_used_at).not.toBeNull();
    r = await report();
    expect(r.json.api_tokens).toEqual([]);
  });

  it("?format=csv answers one table with a kind column, formulas defused", async () => {
    const r = await report("?days=90&format=csv");
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(r.headers.get("content-disposition")).toMatch(/^attachment; filename="stale-access-90d-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = r.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe("kind,id,name,owner_or_email,created_at,last_activity,details");
    const json = (await report("?days=90")).json;
    const count = json.users.length + json.devices.length + json.admins_without_mfa.length + json.api_tokens.length + json.groups_without_members.length;
    expect(lines).toHaveLength(count + 1);
    expect(lines.some((l) => l.startsWith(`user,${ids.idle},rep-idle,`))).toBe(true);
    // The network device named like a formula starts with a quote, inside a quoted cell.
    const router = lines.find((l) => l.startsWith(`device,${ids.router},`))!;
    expect(router).toContain(`'=cmd|' /C calc'!A0`);
    expect(router).not.toMatch(/,=cmd/);
    expect(lines.some((l) => l.startsWith("group_without_members,") && l.includes("rep-ghosts") && l.includes("rep-loc"))).toBe(true);
  });

  it("bad input answers 400 naming the field; only admins may read it", async () => {
    for (const qs of ["?days=0", "?days=abc", "?days=1.5", "?days=99999"]) {
      const r = await report(qs);
      expect(r.status, qs).toBe(400);
      expect(r.json.msg, qs).toMatch(/days/);
    }
    const bad = await report("?format=xml");
    expect(bad.status).toBe(400);
    expect(bad.json.msg).toMatch(/format/);
    expect((await report("", user)).status).toBe(403);
    expect((await call(reportGet, { path: "/api/v1/report/stale_access" })).status).toBe(401);
  });
});
