/**
 * GET /acl/check agrees with the firewall the gateway gets (compared with a plain matcher written
 * here from the gateway rules of docs/gateway-protocol.md, over a grid of devices, destinations,
 * ports and protocols), and GET /acl/impact previews a deploy without changing anything and
 * matches what the check says after the deploy. Bad queries: 400 with the field named.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as checkGet } from "@/app/api/v1/acl/check/route";
import { GET as impactGet } from "@/app/api/v1/acl/impact/route";
import { createLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { createUserDevice } from "@/lib/devices/service";
import { createGroup } from "@/lib/groups/service";
import { gatewayConfiguration } from "@/lib/gateways/service";
import { generateKeyPair } from "@/lib/wireguard/keys";
import { parseIp } from "@/lib/net/ip";
import { parseAddressEntry } from "@/lib/net/ranges";
import { call, createUser, query, signIn, type Jar } from "@/tests/helpers";
import { aclAliasSchema, aclRuleSchema } from "./schema";
import { applyRules, createAlias, createRule, deleteRule } from "./service";

const ACTOR = { userId: null, username: "acl-explain", ip: null };
let root: Jar;
let loc: number;
const dev: Record<string, { id: number; v4: string; v6: string }> = {};
const rules: Record<string, number> = {};

const check = (q: Record<string, string | number>) => {
  const qs = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)])).toString();
  return call(checkGet, { path: `/api/v1/acl/check?${qs}`, jar: root });
};
const impact = (qs = "") => call(impactGet, { path: `/api/v1/acl/impact${qs}`, jar: root });

/** The gateway's view of one packet: the first matching rule decides, else the default policy. */
function oracle(fw: any, src: string, dst: string, protocol: number, port: number | null): { allowed: boolean; ruleId: number | null } {
  const s = parseIp(src)!;
  const d = parseIp(dst)!;
  const covers = (list: any[], v: bigint) =>
    list.length === 0 ||
    list.some((a) => {
      const e = parseAddressEntry(a.ip ?? a.ip_subnet ?? `${a.ip_range.start}-${a.ip_range.end}`);
      return e.ok && e.entry.version === d.version && v >= e.entry.start && v <= e.entry.end;
    });
  const names: Record<number, string> = { 1: "ICMP", 6: "TCP", 17: "UDP" };
  for (const r of fw.rules) {
    if ((r.ip_version === "IPV6" ? 6 : 4) !== d.version) continue;
    if (!covers(r.source_addrs, s.value) || !covers(r.destination_addrs, d.value)) continue;
    const protos: string[] = r.protocols.length ? r.protocols : r.destination_ports.length ? ["TCP", "UDP"] : [];
    if (protos.length && !protos.includes(names[protocol])) continue;
    if (r.destination_ports.length && protocol !== 1) {
      if (port === null) continue;
      if (!r.destination_ports.some((p: any) => (p.single_port !== undefined ? p.single_port === port : port >= p.port_range.start && port <= p.port_range.end))) continue;
    }
    return { allowed: r.verdict === "ALLOW", ruleId: Number(/^ACL (\d+) /.exec(r.comment)![1]) };
  }
  return { allowed: fw.default_policy === "ALLOW", ruleId: null };
}

async function snapshot() {
  return query(`select (select coalesce(json_agg(r order by r.id), '[]') from acl_rules r) rules,
    (select coalesce(json_agg(a order by a.id), '[]') from acl_aliases a) aliases, (select count(*)::int from acl_rule_aliases) ra`);
}

beforeAll(async () => {
  await createUser({ username: "root", isAdmin: true });
  root = await signIn("root");
  loc = (await createLocation(ACTOR, locationSchema.parse({ name: "HQ", address: "198.18.0.1/24, 2001:db8:1::1/64", endpoint: "vpn.example.com", port: 51820, acl_enabled: true, acl_default_allow: false }))).id;
  const ala = await createUser({ username: "ala" });
  const ola = await createUser({ username: "ola" });
  const group = await createGroup(ACTOR, { name: "dev", members: ["ala"], is_admin: false });
  for (const [name, user] of [["ala-laptop", "ala"], ["ola-laptop", "ola"]] as const) {
    const d = await createUserDevice(ACTOR, user, { name, wireguard_pubkey: generateKeyPair().publicKey, description: null });
    const addr = d.configs.find((c: any) => c.network_id === loc)!.address;
    dev[name] = { id: d.device.id, v4: addr.find((a: string) => !a.includes(":"))!, v6: addr.find((a: string) => a.includes(":"))! };
  }
  const web = await createAlias(ACTOR, aclAliasSchema.parse({ name: "web", kind: "destination", destination: "203.0.113.0/24", ports: "443", protocols: [6] }));
  const r = (over: Record<string, unknown>) => aclRuleSchema.parse({ networks: [loc], ...over });
  rules.ssh = (await createRule(ACTOR, r({ name: "ssh", allowed_groups: [group.id], destination: "192.0.2.0/24", ports: "22", protocols: [6] }))).id;
  rules.mid = (await createRule(ACTOR, r({ name: "mid", allowed_users: [ola.id], destination: "192.0.2.10-192.0.2.20" }))).id;
  rules.v6 = (await createRule(ACTOR, r({ name: "v6", allow_all_users: true, denied_users: [ola.id], destination: "2001:db8:ffff::/48", ports: "443" }))).id;
  rules.web = (await createRule(ACTOR, r({ name: "web", allowed_users: [ala.id], aliases: [web.id] }))).id;
  await applyRules(ACTOR, Object.values(rules));
});

describe("GET /acl/check", () => {
  it("agrees with the gateway's firewall on every cell of a grid, naming the deciding rule", async () => {
    const fw = (await gatewayConfiguration(loc)).firewall_config as any;
    expect(fw.rules.length).toBeGreaterThan(4);
    const dests = ["192.0.2.1", "192.0.2.15", "192.0.2.30", "198.51.100.1", "203.0.113.5", "2001:db8:ffff::1", "2001:db8:eeee::1"];
    const traffic: [number, number | null][] = [
      [6, 22],
      [6, 443],
      [17, 53],
      [17, 22],
      [1, null],
    ];
    let allowedCount = 0;
    for (const d of Object.values(dev)) {
      for (const dst of dests) {
        for (const [protocol, port] of traffic) {
          const q: Record<string, string | number> = { location: loc, device: d.id, destination: dst, protocol };
          if (port !== null) q.port = port;
          const res = await check(q);
          expect(res.status, res.text).toBe(200);
          const want = oracle(fw, dst.includes(":") ? d.v6 : d.v4, dst, protocol, port);
          const label = `${d.id} → ${dst} ${protocol}/${port}`;
          expect(res.json.allowed, label).toBe(want.allowed);
          expect(res.json.rule?.id ?? null, label).toBe(want.ruleId);
          if (want.ruleId === null) expect(res.json.reason, label).toMatch(/^default policy \(deny\)/);
          expect(res.json.reason_code, label).toBe(want.ruleId === null ? "default_deny" : want.allowed ? "rule_allow" : "rule_deny");
          if (want.allowed) allowedCount++;
        }
      }
    }
    expect(allowedCount).toBeGreaterThan(3); // the grid is not all "deny"
  });

  it("answers for a user's devices, with the rule and reason", async () => {
    const res = await check({ location: loc, user: "ala", destination: "192.0.2.5", port: 22, protocol: 6 });
    expect(res.json).toEqual({
      allowed: true,
      rule: { id: rules.ssh, name: "ssh" },
      alias: null,
      reason: 'allowed by rule "ssh"',
      reason_code: "rule_allow",
      devices: [
        {
          id: dev["ala-laptop"].id,
          name: "ala-laptop",
          source: dev["ala-laptop"].v4,
          allowed: true,
          rule: { id: rules.ssh, name: "ssh" },
          alias: null,
          reason: 'allowed by rule "ssh"',
          reason_code: "rule_allow",
        },
      ],
    });
    const denied = await check({ location: loc, user: "ola", destination: "192.0.2.5", port: 22, protocol: 6 });
    expect(denied.json).toMatchObject({ allowed: false, rule: { id: rules.ssh, name: "ssh" }, reason_code: "rule_deny" });
    expect(denied.json.reason).toMatch(/^denied by rule "ssh": the source is not among/);
    const alias = await check({ location: loc, user: "ala", destination: "203.0.113.9", port: 443, protocol: 6 });
    expect(alias.json).toMatchObject({ allowed: true, rule: { id: rules.web, name: "web" }, alias: { name: "web" }, reason: 'allowed by rule "web" (destination alias "web")', reason_code: "rule_allow" });
  });

  it("says why with a code too: ACL off, no address of the destination's family", async () => {
    const off = (await createLocation(ACTOR, locationSchema.parse({ name: "Branch", address: "198.18.5.1/24", endpoint: "branch.example.com", port: 51821 }))).id;
    const offAnswer = await check({ location: off, user: "ala", destination: "192.0.2.5", port: 22, protocol: 6 });
    expect(offAnswer.status, offAnswer.text).toBe(200);
    expect(offAnswer.json).toMatchObject({ allowed: true, rule: null, alias: null, reason_code: "acl_off" });
    expect(offAnswer.json.reason).toMatch(/^ACL is off/);
    const noV6 = await check({ location: off, user: "ala", destination: "2001:db8::5", port: 22, protocol: 6 });
    expect(noV6.json).toMatchObject({ allowed: false, rule: null, reason_code: "no_address", reason: "the device has no IPv6 address in this location" });
  });

  it("refuses bad queries with 400 naming the field", async () => {
    const cases: [Record<string, string | number>, string][] = [
      [{ location: loc, user: "ala", destination: "192.0.2.1", port: 70000, protocol: 6 }, "port: maximum port is 65535"],
      [{ location: loc, user: "ala", device: dev["ala-laptop"].id, destination: "192.0.2.1", port: 22 }, "user: give either a user or a device"],
      [{ location: loc, destination: "192.0.2.1", port: 22 }, "user: give either a user or a device"],
      [{ location: 999999, user: "ala", destination: "192.0.2.1", port: 22 }, "location: unknown id 999999"],
      [{ location: loc, user: "nobody", destination: "192.0.2.1", port: 22 }, "user: unknown user nobody"],
      [{ location: loc, user: "ala", destination: "192.0.2.0/24", port: 22 }, "destination: enter a single IP address"],
      [{ location: loc, user: "ala", destination: "192.0.2.1", protocol: 47 }, "protocol: protocols are TCP (6), UDP (17) and ICMP (1)"],
      [{ location: loc, user: "ala", destination: "192.0.2.1", protocol: 17 }, "port: field is required for TCP and UDP"],
      [{ location: loc, device: 999999, destination: "192.0.2.1", port: 22 }, "device: unknown id 999999"],
    ];
    for (const [q, msg] of cases) {
      const res = await check(q);
      expect(res.status, JSON.stringify(q)).toBe(400);
      expect(res.json.msg).toBe(msg);
    }
  });
});

describe("GET /acl/impact", () => {
  it("lists gains and losses per location for pending changes, changes nothing, and matches the check after the deploy", async () => {
    const olaId = (await query<{ id: number }>("select id from users where username = 'ola'"))[0].id;
    const add = await createRule(ACTOR, aclRuleSchema.parse({ name: "http", networks: [loc], allowed_users: [olaId], destination: "198.51.100.0/24", ports: "80", protocols: [6] }));
    await deleteRule(ACTOR, rules.ssh);
    const mark = (await query<{ id: number }>("select id from acl_rules where parent_id = $1", [rules.ssh]))[0].id;

    const before = await snapshot();
    const res = await impact(`?rules=${add.id}&rules=${mark}`);
    expect(res.status, res.text).toBe(200);
    expect(await snapshot()).toEqual(before);
    expect(res.json.rules).toEqual([add.id, mark].sort((a, b) => a - b));
    const [l] = res.json.locations;
    expect(l).toMatchObject({ location_id: loc, location_name: "HQ", gained: 1, lost: 1, devices_gaining: 1, devices_losing: 1 });
    expect(l.gains).toEqual([{ device_id: dev["ola-laptop"].id, device_name: "ola-laptop", username: "ola", destination: "198.51.100.0/24", ports: "80", protocol: "TCP" }]);
    expect(l.losses).toEqual([{ device_id: dev["ala-laptop"].id, device_name: "ala-laptop", username: "ala", destination: "192.0.2.0/24", ports: "22", protocol: "TCP" }]);

    // Only one of them: only its effect.
    const one = await impact(`?rules=${add.id}`);
    expect(one.json.locations[0]).toMatchObject({ gained: 1, lost: 0 });
    // Nothing given: every pending change.
    const all = await impact();
    expect(all.json.rules).toEqual([add.id, mark].sort((a, b) => a - b));

    // Bad ids: the deploy's own errors, nothing changed.
    const applied = await impact(`?rules=${rules.mid}`);
    expect(applied.status).toBe(409);
    expect(applied.json.msg).toBe(`rules: rule ${rules.mid} is already applied`);
    const unknown = await impact("?rules=999999");
    expect(unknown.status).toBe(400);
    expect((await impact("?rules=abc")).json.msg).toBe("rules: expected a valid number");
    expect(await snapshot()).toEqual(before);

    // After the deploy the explainer says what the preview promised.
    expect((await check({ location: loc, device: dev["ola-laptop"].id, destination: "198.51.100.7", port: 80, protocol: 6 })).json.allowed).toBe(false);
    await applyRules(ACTOR, [add.id, mark]);
    expect((await check({ location: loc, device: dev["ola-laptop"].id, destination: "198.51.100.7", port: 80, protocol: 6 })).json.allowed).toBe(true);
    expect((await check({ location: loc, device: dev["ala-laptop"].id, destination: "192.0.2.1", port: 22, protocol: 6 })).json.allowed).toBe(false);
  });
});
