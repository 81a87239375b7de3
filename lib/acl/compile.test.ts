/**
 * The compiler on hand-made inputs: family separation, range merging, allow-before-deny,
 * denied principals subtracted, component and destination aliases, and the evaluator that
 * the explainer and the impact preview share.
 */
import { describe, expect, it } from "vitest";
import { compileFirewall, evaluate, prepareRules, type CompileDevice, type CompileInput, type CompileRule } from "./compile";
import { parseIp } from "../net/ip";

const rule = (over: Partial<CompileRule> = {}): CompileRule => ({
  id: 1,
  name: "r",
  allowAllUsers: false,
  denyAllUsers: false,
  allowAllNetworkDevices: false,
  denyAllNetworkDevices: false,
  allowedUsers: [],
  deniedUsers: [],
  allowedGroups: [],
  deniedGroups: [],
  allowedDevices: [],
  deniedDevices: [],
  destination: [],
  ports: [],
  protocols: [],
  aliases: [],
  ...over,
});

// Users 1 (ala), 2 (ola), 3 (ela); devices 11, 12 (ala), 21 (ola), 31 (ela), 91 (network device).
const devices: CompileDevice[] = [
  { id: 11, userId: 1, type: "user", active: true, ips: ["198.18.0.2", "2001:db8:1::2"] },
  { id: 12, userId: 1, type: "user", active: true, ips: ["198.18.0.3", "2001:db8:1::3"] },
  { id: 21, userId: 2, type: "user", active: true, ips: ["198.18.0.4", "2001:db8:1::4"] },
  { id: 31, userId: 3, type: "user", active: false, ips: ["198.18.0.5", "2001:db8:1::5"] },
  { id: 91, userId: 1, type: "network", active: true, ips: ["198.18.0.9", "2001:db8:1::9"] },
];

const input = (rules: CompileRule[], over: Partial<CompileInput> = {}): CompileInput => ({
  addresses: ["198.18.0.1/24", "2001:db8:1::1/64"],
  defaultAllow: false,
  rules,
  aliases: new Map(),
  devices,
  groupMembers: new Map([[7, [1, 2, 3]]]),
  ...over,
});

const v = (t: string) => parseIp(t)!;
function allowed(cfg: ReturnType<typeof compileFirewall>, src: string, dst: string, protocol = 6, port: number | null = 22) {
  const s = v(src);
  const d = v(dst);
  return evaluate(prepareRules(cfg.config), cfg.config.default_policy === "ALLOW", { version: s.version, source: s.value, destination: d.value, protocol, port }).allowed;
}

describe("compileFirewall", () => {
  it("an IPv4-only rule compiles to IPv4 rules only: IPv6 is neither opened nor closed", () => {
    const c = compileFirewall(input([rule({ allowedUsers: [1], destination: ["192.0.2.0/24"], ports: ["22"], protocols: [6] })], { defaultAllow: true }));
    expect(c.config.rules.map((r) => [r.verdict, r.ip_version])).toEqual([
      ["ALLOW", "IPV4"],
      ["DENY", "IPV4"],
    ]);
    expect(c.config.rules[0]).toEqual({
      id: 1,
      source_addrs: [{ ip_subnet: "198.18.0.2/31" }],
      destination_addrs: [{ ip_subnet: "192.0.2.0/24" }],
      destination_ports: [{ single_port: 22 }],
      protocols: ["TCP"],
      verdict: "ALLOW",
      comment: "ACL 1 - r ALLOW",
      ip_version: "IPV4",
    });
    expect(c.config.rules[1]).toMatchObject({ source_addrs: [], destination_addrs: [{ ip_subnet: "192.0.2.0/24" }], destination_ports: [], protocols: [], verdict: "DENY" });
    // IPv6 traffic of a user who is not allowed still follows the default policy (allow).
    expect(allowed(c, "2001:db8:1::4", "2001:db8:ffff::1")).toBe(true);
    expect(allowed(c, "198.18.0.4", "192.0.2.1")).toBe(false);
    expect(allowed(c, "198.18.0.2", "192.0.2.1")).toBe(true);
  });

  it("an IPv6-only rule compiles to IPv6 rules only; a rule without addresses covers both families; a location without IPv6 gets no IPv6 rule", () => {
    const six = compileFirewall(input([rule({ allowedUsers: [1], destination: ["2001:db8:ffff::/48"] })]));
    expect(six.config.rules.map((r) => r.ip_version)).toEqual(["IPV6", "IPV6"]);
    const any = compileFirewall(input([rule({ allowedUsers: [1], ports: ["443"] })]));
    expect(any.config.rules.map((r) => `${r.verdict} ${r.ip_version}`)).toEqual(["ALLOW IPV4", "ALLOW IPV6", "DENY IPV4", "DENY IPV6"]);
    const v4only = compileFirewall(input([rule({ allowedUsers: [1], ports: ["443"] })], { addresses: ["198.18.0.1/24"] }));
    expect(v4only.config.rules.map((r) => r.ip_version)).toEqual(["IPV4", "IPV4"]);
  });

  it("merges destination and source addresses into the fewest networks and ranges", () => {
    const c = compileFirewall(
      input([rule({ allowAllUsers: true, allowAllNetworkDevices: true, destination: ["192.0.2.0/25", "192.0.2.128/25", "198.51.100.1-198.51.100.5", "198.51.100.3-198.51.100.9", "203.0.113.7"] })], { addresses: ["198.18.0.1/24"] }),
    );
    const [a] = c.config.rules;
    expect(a.destination_addrs).toEqual([{ ip_subnet: "192.0.2.0/24" }, { ip_range: { start: "198.51.100.1", end: "198.51.100.9" } }, { ip: "203.0.113.7" }]);
    // Devices .2 .3 .4 (user devices of active users) and .9 (network device); .5 is no peer and
    // .6–.8 nobody's, so no packet from the interface carries them: one range spans them all.
    expect(a.source_addrs).toEqual([{ ip_range: { start: "198.18.0.2", end: "198.18.0.9" } }]);
    expect(c.elements).toBeGreaterThan(0);
    // A peer that is not allowed splits the range: ala's .2 and .3, not ola's .4, then .9.
    const split = compileFirewall(input([rule({ allowedUsers: [1], allowAllNetworkDevices: true, destination: ["192.0.2.0/24"] })], { addresses: ["198.18.0.1/24"] }));
    expect(split.config.rules[0].source_addrs).toEqual([{ ip_subnet: "198.18.0.2/31" }, { ip: "198.18.0.9" }]);
    expect(allowed(split, "198.18.0.4", "192.0.2.1")).toBe(false);
    expect(allowed(split, "198.18.0.3", "192.0.2.1")).toBe(true);
  });

  it("puts every ALLOW before every DENY, rules in id order", () => {
    const c = compileFirewall(input([rule({ id: 2, name: "b", allowedUsers: [2], destination: ["192.0.2.2"] }), rule({ id: 1, name: "a", allowedUsers: [1], destination: ["192.0.2.1"] })], { addresses: ["198.18.0.1/24"] }));
    expect(c.config.rules.map((r) => `${r.verdict} ${r.id}`)).toEqual(["ALLOW 1", "ALLOW 2", "DENY 1", "DENY 2"]);
    // An overlapping rule cannot shadow another's allow with its deny.
    const overlap = compileFirewall(input([rule({ id: 1, allowedUsers: [1], destination: ["192.0.2.0/24"] }), rule({ id: 2, allowedUsers: [2], destination: ["192.0.2.9"] })], { addresses: ["198.18.0.1/24"] }));
    expect(allowed(overlap, "198.18.0.4", "192.0.2.9")).toBe(true);
    expect(allowed(overlap, "198.18.0.4", "192.0.2.8")).toBe(false);
  });

  it("subtracts denied users, groups and devices from the allowed ones; no ALLOW when nobody is left, but the DENY stays", () => {
    const c = compileFirewall(input([rule({ allowedGroups: [7], deniedUsers: [2], deniedDevices: [12], destination: ["192.0.2.0/24"] })], { addresses: ["198.18.0.1/24"] }));
    expect(c.config.rules[0].source_addrs).toEqual([{ ip: "198.18.0.2" }]);
    const hole = compileFirewall(input([rule({ allowAllUsers: true, deniedDevices: [12], destination: ["192.0.2.0/24"] })], { addresses: ["198.18.0.1/24"] }));
    expect(hole.config.rules[0].source_addrs).toEqual([{ ip: "198.18.0.2" }, { ip: "198.18.0.4" }]);
    const none = compileFirewall(input([rule({ allowedUsers: [2], deniedGroups: [7], destination: ["192.0.2.0/24"] })], { addresses: ["198.18.0.1/24"] }));
    expect(none.config.rules.map((r) => r.verdict)).toEqual(["DENY"]);
    const allButNet = compileFirewall(input([rule({ allowAllUsers: true, allowAllNetworkDevices: true, denyAllNetworkDevices: false, deniedDevices: [91], destination: ["192.0.2.0/24"] })], { addresses: ["198.18.0.1/24"] }));
    expect(allButNet.config.rules[0].source_addrs).toEqual([{ ip_range: { start: "198.18.0.2", end: "198.18.0.4" } }]);
    const denyAll = compileFirewall(input([rule({ allowedUsers: [1], denyAllUsers: true, allowedDevices: [91], destination: ["192.0.2.0/24"] })], { addresses: ["198.18.0.1/24"] }));
    expect(denyAll.config.rules[0].source_addrs).toEqual([{ ip: "198.18.0.9" }]);
  });

  it("merges component aliases into the rule and gives each destination alias its own rule pair", () => {
    const aliases = new Map([
      [5, { id: 5, name: "dns", kind: "component" as const, destination: ["192.0.2.53"], ports: ["53"], protocols: [17] }],
      [6, { id: 6, name: "web", kind: "destination" as const, destination: ["203.0.113.0/24", "2001:db8:ffff::/48"], ports: ["443"], protocols: [6] }],
    ]);
    const c = compileFirewall(input([rule({ allowedUsers: [1], destination: ["192.0.2.1"], ports: ["22"], protocols: [6], aliases: [5, 6] })], { aliases }));
    expect(c.config.rules.map((r) => `${r.verdict} ${r.ip_version} ${r.comment}`)).toEqual([
      "ALLOW IPV4 ACL 1 - r ALLOW",
      "ALLOW IPV4 ACL 1 - r, ALIAS 6 - web ALLOW",
      "ALLOW IPV6 ACL 1 - r, ALIAS 6 - web ALLOW",
      "DENY IPV4 ACL 1 - r DENY",
      "DENY IPV4 ACL 1 - r, ALIAS 6 - web DENY",
      "DENY IPV6 ACL 1 - r, ALIAS 6 - web DENY",
    ]);
    expect(c.config.rules[0]).toMatchObject({ destination_addrs: [{ ip: "192.0.2.1" }, { ip: "192.0.2.53" }], destination_ports: [{ single_port: 22 }, { single_port: 53 }], protocols: ["TCP", "UDP"] });
    expect(c.config.rules[1]).toMatchObject({ destination_addrs: [{ ip_subnet: "203.0.113.0/24" }], destination_ports: [{ single_port: 443 }], protocols: ["TCP"] });
    // A rule made only of destination aliases has no pair of its own.
    const only = compileFirewall(input([rule({ allowedUsers: [1], aliases: [6] })], { aliases }));
    expect(only.config.rules.every((r) => r.comment.includes("ALIAS 6"))).toBe(true);
  });

  it("evaluates ports and protocols as the gateway does: ports without protocols mean TCP and UDP, ICMP ignores ports", () => {
    const c = compileFirewall(input([rule({ allowedUsers: [1], destination: ["192.0.2.1"], ports: ["80-90"] }), rule({ id: 2, allowedUsers: [1], destination: ["192.0.2.2"], ports: ["22"], protocols: [1] })], { addresses: ["198.18.0.1/24"] }));
    expect(allowed(c, "198.18.0.2", "192.0.2.1", 6, 85)).toBe(true);
    expect(allowed(c, "198.18.0.2", "192.0.2.1", 17, 80)).toBe(true);
    expect(allowed(c, "198.18.0.2", "192.0.2.1", 6, 91)).toBe(false);
    expect(allowed(c, "198.18.0.2", "192.0.2.1", 1, null)).toBe(false);
    expect(allowed(c, "198.18.0.2", "192.0.2.2", 1, null)).toBe(true);
    expect(c.config.default_policy).toBe("DENY");
  });
});
