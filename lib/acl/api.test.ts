/**
 * ACL rules and aliases through the real route handlers on a real database: the state machine
 * (new → applied, applied → modified copy → applied, applied → deleted mark → gone, discards),
 * alias modifications and their use by rules, the activity events, and bad input (400/409 with
 * a precise msg, nothing changed).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as ruleList, POST as ruleCreate } from "@/app/api/v1/acl/rule/route";
import { GET as ruleGet, PUT as rulePut, DELETE as ruleDelete } from "@/app/api/v1/acl/rule/[id]/route";
import { PUT as ruleApply } from "@/app/api/v1/acl/rule/apply/route";
import { GET as aliasList, POST as aliasCreate } from "@/app/api/v1/acl/alias/route";
import { GET as aliasGet, PUT as aliasPut, DELETE as aliasDelete } from "@/app/api/v1/acl/alias/[id]/route";
import { PUT as aliasApply } from "@/app/api/v1/acl/alias/apply/route";
import { call, createUser, query, signIn, type Jar } from "@/tests/helpers";
import { expireRules } from "./service";

let root: Jar;
let userJar: Jar;
const ids: Record<string, number> = {};

const rules = {
  list: (jar = root) => call(ruleList, { path: "/api/v1/acl/rule", jar }),
  create: (body: unknown, jar = root) => call(ruleCreate, { method: "POST", path: "/api/v1/acl/rule", jar, body }),
  get: (id: number) => call(ruleGet, { path: `/api/v1/acl/rule/${id}`, jar: root, params: { id: String(id) } }),
  put: (id: number, body: unknown) => call(rulePut, { method: "PUT", path: `/api/v1/acl/rule/${id}`, jar: root, params: { id: String(id) }, body }),
  del: (id: number) => call(ruleDelete, { method: "DELETE", path: `/api/v1/acl/rule/${id}`, jar: root, params: { id: String(id) } }),
  apply: (list: unknown) => call(ruleApply, { method: "PUT", path: "/api/v1/acl/rule/apply", jar: root, body: { rules: list } }),
};
const aliases = {
  list: () => call(aliasList, { path: "/api/v1/acl/alias", jar: root }),
  create: (body: unknown) => call(aliasCreate, { method: "POST", path: "/api/v1/acl/alias", jar: root, body }),
  get: (id: number) => call(aliasGet, { path: `/api/v1/acl/alias/${id}`, jar: root, params: { id: String(id) } }),
  put: (id: number, body: unknown) => call(aliasPut, { method: "PUT", path: `/api/v1/acl/alias/${id}`, jar: root, params: { id: String(id) }, body }),
  del: (id: number) => call(aliasDelete, { method: "DELETE", path: `/api/v1/acl/alias/${id}`, jar: root, params: { id: String(id) } }),
  apply: (list: unknown) => call(aliasApply, { method: "PUT", path: "/api/v1/acl/alias/apply", jar: root, body: { aliases: list } }),
};

const base = () => ({
  name: "ssh",
  all_networks: true,
  networks: [],
  expires: null,
  enabled: true,
  allow_all_users: false,
  deny_all_users: false,
  allow_all_network_devices: false,
  deny_all_network_devices: false,
  allowed_users: [ids.ala],
  denied_users: [],
  allowed_groups: [],
  denied_groups: [],
  allowed_devices: [],
  denied_devices: [],
  destination: "192.0.2.0/24, 198.51.100.10-198.51.100.20, 2001:db8::1",
  aliases: [],
  ports: "22, 8000-9000",
  protocols: [6],
});

/** Everything ACL-related plus the activity log: a failed request must leave it unchanged. */
async function snapshot() {
  return query(`select
    (select coalesce(json_agg(r order by r.id), '[]') from acl_rules r) rules,
    (select coalesce(json_agg(a order by a.id), '[]') from acl_aliases a) aliases,
    (select count(*)::int from acl_rule_users) ru, (select count(*)::int from acl_rule_aliases) ra,
    (select count(*)::int from activity_log) activity`);
}

async function lastEvent() {
  const [row] = await query<{ event: string; description: string }>("select event, description from activity_log order by id desc limit 1");
  return row;
}

beforeAll(async () => {
  await createUser({ username: "root", isAdmin: true });
  ids.ala = (await createUser({ username: "ala" })).id;
  ids.ola = (await createUser({ username: "ola" })).id;
  root = await signIn("root");
  userJar = await signIn("ala");
});

describe("rules: state machine", () => {
  it("creates a new rule (201, defguard ApiAclRule shape), deploys it, edits it through a pending copy, deletes it through a mark", async () => {
    const created = await rules.create(base());
    expect(created.status, created.text).toBe(201);
    expect(created.json).toEqual({
      ...base(),
      id: expect.any(Number),
      parent_id: null,
      state: "new",
      destination: "192.0.2.0/24, 198.51.100.10-198.51.100.20, 2001:db8::1",
      ports: "22, 8000-9000",
    });
    expect(await lastEvent()).toMatchObject({ event: "acl_rule_added" });
    const id = created.json.id;

    expect((await rules.apply([id])).status).toBe(200);
    expect((await rules.get(id)).json).toMatchObject({ state: "applied", parent_id: null });
    expect(await lastEvent()).toMatchObject({ event: "acl_rules_applied" });

    const edited = await rules.put(id, { ...base(), name: "ssh-2", ports: "22" });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.json).toMatchObject({ state: "modified", parent_id: id, name: "ssh-2", ports: "22" });
    expect(edited.json.id).not.toBe(id);
    expect((await rules.get(id)).json).toMatchObject({ state: "applied", name: "ssh", ports: "22, 8000-9000" });

    // A second edit of the applied rule replaces the pending copy; editing the copy edits it in place.
    const again = await rules.put(id, { ...base(), name: "ssh-3" });
    expect((await rules.get(edited.json.id)).status).toBe(404);
    const inPlace = await rules.put(again.json.id, { ...base(), name: "ssh-4" });
    expect(inPlace.json).toMatchObject({ id: again.json.id, state: "modified", parent_id: id, name: "ssh-4" });

    expect((await rules.apply([again.json.id])).status).toBe(200);
    expect((await rules.get(id)).status).toBe(404);
    expect((await rules.get(again.json.id)).json).toMatchObject({ state: "applied", parent_id: null, name: "ssh-4" });
    const applied = again.json.id;

    const del = await rules.del(applied);
    expect(del.status).toBe(200);
    const marks = (await rules.list()).json.filter((r: { parent_id: number | null }) => r.parent_id === applied);
    expect(marks).toHaveLength(1);
    expect(marks[0]).toMatchObject({ state: "deleted", name: "ssh-4", allowed_users: [ids.ala] });
    expect(await lastEvent()).toMatchObject({ event: "acl_rule_removed" });

    // Editing a rule marked for deletion: 409, nothing changes.
    const before = await snapshot();
    const refused = await rules.put(marks[0].id, base());
    expect(refused.status).toBe(409);
    expect(refused.json.msg).toMatch(/marked for deletion/);
    expect(await snapshot()).toEqual(before);

    expect((await rules.apply([marks[0].id])).status).toBe(200);
    expect((await rules.get(applied)).status).toBe(404);
    expect((await rules.get(marks[0].id)).status).toBe(404);
  });

  it("discards pending changes: a new rule, a modification, a deletion mark", async () => {
    const n = await rules.create({ ...base(), name: "discard-new" });
    expect((await rules.del(n.json.id)).status).toBe(200);
    expect((await rules.get(n.json.id)).status).toBe(404);

    const a = await rules.create({ ...base(), name: "keep" });
    await rules.apply([a.json.id]);
    const m = await rules.put(a.json.id, { ...base(), name: "keep-changed" });
    expect((await rules.del(m.json.id)).status).toBe(200);
    expect((await rules.get(a.json.id)).json).toMatchObject({ state: "applied", name: "keep" });

    await rules.del(a.json.id);
    const mark = (await rules.list()).json.find((r: { parent_id: number | null }) => r.parent_id === a.json.id);
    expect((await rules.del(mark.id)).status).toBe(200);
    expect((await rules.get(a.json.id)).json).toMatchObject({ state: "applied" });
    expect((await rules.list()).json.filter((r: { parent_id: number | null }) => r.parent_id === a.json.id)).toEqual([]);
  });

  it("expires applied rules whose expiry passed (state expired); an expired rule can be edited and deleted", async () => {
    const r = await rules.create({ ...base(), name: "temp", expires: new Date(Date.now() + 3_600_000).toISOString() });
    expect(r.json.expires).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
    await rules.apply([r.json.id]);
    expect(await expireRules(new Date(Date.now() + 2 * 3_600_000))).toContain(r.json.id);
    expect((await rules.get(r.json.id)).json.state).toBe("expired");
    const before = await snapshot();
    const again = await rules.apply([r.json.id]);
    expect(again.status).toBe(409);
    expect(again.json.msg).toBe(`rules: rule ${r.json.id} is already applied`);
    expect(await snapshot()).toEqual(before);
    const m = await rules.put(r.json.id, { ...base(), name: "temp-2" });
    expect(m.json).toMatchObject({ state: "modified", parent_id: r.json.id });
  });
});

describe("aliases", () => {
  it("creates applied aliases, a rule uses one, deleting it is refused (409), a change lists the affected rules and moves them on deploy", async () => {
    const a = await aliases.create({ name: "web", kind: "destination", destination: "203.0.113.0/25, 203.0.113.128/25", ports: "443", protocols: [6] });
    expect(a.status, a.text).toBe(201);
    expect(a.json).toEqual({ id: expect.any(Number), parent_id: null, name: "web", kind: "destination", state: "applied", destination: "203.0.113.0/25, 203.0.113.128/25", ports: "443", protocols: [6], rules: [] });
    expect(await lastEvent()).toMatchObject({ event: "acl_alias_added" });

    const r = await rules.create({ ...base(), name: "web-rule", destination: "", ports: "", protocols: [], aliases: [a.json.id] });
    expect(r.status, r.text).toBe(201);
    expect((await aliases.get(a.json.id)).json.rules).toEqual([r.json.id]);

    const before = await snapshot();
    const refused = await aliases.del(a.json.id);
    expect(refused.status).toBe(409);
    expect(refused.json.msg).toBe(`alias ${a.json.id} is used by rule ${r.json.id}`);
    expect(await snapshot()).toEqual(before);

    const m = await aliases.put(a.json.id, { name: "web", kind: "destination", destination: "203.0.113.0/24", ports: "443", protocols: [6] });
    expect(m.json).toMatchObject({ state: "modified", parent_id: a.json.id, rules: [r.json.id], destination: "203.0.113.0/24" });
    expect(await lastEvent()).toMatchObject({ event: "acl_alias_modified" });

    // A pending modification cannot be used by rules.
    const snap = await snapshot();
    const bad = await rules.create({ ...base(), aliases: [m.json.id] });
    expect(bad.status).toBe(400);
    expect(bad.json.msg).toBe(`aliases: alias ${m.json.id} is a pending change, not an applied alias`);
    expect(await snapshot()).toEqual(snap);

    expect((await aliases.apply([m.json.id])).status).toBe(200);
    expect((await aliases.get(a.json.id)).status).toBe(404);
    expect((await aliases.get(m.json.id)).json).toMatchObject({ state: "applied", parent_id: null, rules: [r.json.id] });
    expect((await rules.get(r.json.id)).json.aliases).toEqual([m.json.id]);
    expect(await lastEvent()).toMatchObject({ event: "acl_aliases_applied" });

    await rules.del(r.json.id);
    expect((await aliases.del(m.json.id)).status).toBe(200);
    expect(await lastEvent()).toMatchObject({ event: "acl_alias_removed" });
  });
});

describe("concurrency", () => {
  it("a rule saved while its alias is deleted: one of them wins, never a 500", async () => {
    for (let i = 0; i < 5; i++) {
      const a = await aliases.create({ name: `race-${i}`, kind: "component", destination: "192.0.2.9", ports: "", protocols: [] });
      const [created, deleted] = await Promise.all([rules.create({ ...base(), name: `race-rule-${i}`, aliases: [a.json.id] }), aliases.del(a.json.id)]);
      const pair = `${created.status}/${deleted.status}`;
      expect(["201/409", "400/200"], `${pair}: ${created.text} ${deleted.text}`).toContain(pair);
      if (created.status === 201) {
        expect(created.json.aliases).toEqual([a.json.id]);
        await rules.del(created.json.id);
      } else expect(created.json.msg).toBe(`aliases: unknown id ${a.json.id}`);
    }
  });
});

describe("bad input: 400/409 with a precise msg, nothing changed", () => {
  const cases: [string, () => unknown, number, string | RegExp][] = [
    ["range start after end", () => ({ ...base(), destination: "192.0.2.20-192.0.2.10" }), 400, "destination: an address range must not start after its end"],
    ["mixed families in a range", () => ({ ...base(), destination: "192.0.2.1-2001:db8::1" }), 400, "destination: an address range must not mix IPv4 and IPv6"],
    ["not an address", () => ({ ...base(), destination: "192.0.2.300" }), 400, /^destination: enter IP addresses/],
    ["port 70000", () => ({ ...base(), ports: "70000" }), 400, "ports: maximum port is 65535"],
    ["port 0", () => ({ ...base(), ports: "0" }), 400, /^ports: enter ports/],
    ["port range backwards", () => ({ ...base(), ports: "90-80" }), 400, "ports: a port range must not start after its end"],
    ["unknown protocol", () => ({ ...base(), protocols: [47] }), 400, /^protocols\.0: protocols are TCP/],
    ["nothing allowed", () => ({ ...base(), allowed_users: [] }), 400, /^allowed_users: allow at least one/],
    ["allowed and denied user", () => ({ ...base(), denied_users: [ids.ala] }), 400, "denied_users: the same members cannot be both allowed and denied"],
    ["allow all and deny all", () => ({ ...base(), allow_all_users: true, deny_all_users: true }), 400, "deny_all_users: the same members cannot be both allowed and denied"],
    ["expiry in the past", () => ({ ...base(), expires: "2001-01-01T00:00:00" }), 400, "expires: the expiry date must be in the future"],
    ["unknown user", () => ({ ...base(), allowed_users: [ids.ala, 999999] }), 400, "allowed_users: unknown id 999999"],
    ["unknown location", () => ({ ...base(), networks: [999998] }), 400, "networks: unknown id 999998"],
    ["unknown alias", () => ({ ...base(), aliases: [999997] }), 400, "aliases: unknown id 999997"],
  ];
  for (const [what, body, status, msg] of cases) {
    it(`create: ${what}`, async () => {
      const before = await snapshot();
      const res = await rules.create(body());
      expect(res.status, res.text).toBe(status);
      if (typeof msg === "string") expect(res.json.msg).toBe(msg);
      else expect(res.json.msg).toMatch(msg);
      expect(await snapshot()).toEqual(before);
    });
  }

  it("update and apply: unknown ids, already applied; alias with a backwards range", async () => {
    const r = await rules.create({ ...base(), name: "bad-input" });
    await rules.apply([r.json.id]);
    const before = await snapshot();
    const checks: [Promise<Awaited<ReturnType<typeof rules.get>>>, number, string][] = [
      [rules.apply([r.json.id]), 409, `rules: rule ${r.json.id} is already applied`],
      [rules.apply([999999]), 400, "rules: unknown rule 999999"],
      [rules.apply([]), 400, "rules: field is required"],
      [rules.put(999999, base()), 404, "ACL rule not found"],
      [rules.put(r.json.id, { ...base(), ports: "1-65536" }), 400, "ports: maximum port is 65535"],
      [aliases.apply([999999]), 400, "aliases: unknown alias 999999"],
      [aliases.create({ name: "x", kind: "component", destination: "2001:db8::9-2001:db8::1" }), 400, "destination: an address range must not start after its end"],
      [aliases.create({ name: "x", kind: "other" }), 400, "kind: not one of the allowed values"],
      [aliases.del(999999), 404, "ACL alias not found"],
    ];
    for (const [p, status, msg] of checks) {
      const res = await p;
      expect(res.status, res.text).toBe(status);
      expect(res.json.msg).toBe(msg);
    }
    const a = await aliases.list();
    expect(a.status).toBe(200);
    expect(await snapshot()).toEqual(before);
  });

  it("is admin only", async () => {
    expect((await rules.list(userJar)).status).toBe(403);
    expect((await rules.create(base(), userJar)).status).toBe(403);
  });
});
