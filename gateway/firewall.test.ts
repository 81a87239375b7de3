import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildFirewall,
  commonRules,
  firewallModel,
  firewallTableName,
  forwardHandles,
  fullScript,
  incrementalScript,
  mergeIntervals,
  nftComment,
  nftSetName,
  portElements,
  sameFirewall,
  type FirewallModelCache,
  type WireFirewallConfig,
} from "./firewall";

const forwardRules = (script: string) => {
  const body = script.slice(script.indexOf("chain forward {"));
  return body
    .slice(0, body.indexOf("\t}"))
    .split("\n")
    .slice(2)
    .map((l) => l.trim())
    .filter(Boolean);
};

describe("buildFirewall", () => {
  it("replaces the interface's inet table atomically and sets the forward policy", () => {
    const { script, skipped } = buildFirewall("wg0", { default_policy: "DENY", rules: [], snat_bindings: [] });
    expect(skipped).toEqual([]);
    expect(script.split("\n").slice(0, 3)).toEqual(["table inet defguard_wg0", "delete table inet defguard_wg0", "table inet defguard_wg0 {"]);
    expect(script).toContain("type filter hook forward priority filter; policy drop;");
    expect(forwardRules(script)).toEqual(['iifname != "wg0" accept', "ct state established,related accept"]);
    expect(script).not.toContain("postrouting");
    expect(buildFirewall("wg0", { default_policy: "ALLOW" }).script).toContain("policy accept;");
    expect(buildFirewall("wg0", { default_policy: 1 }).script).toContain("policy drop;");
  });

  it("one nft rule per protocol, ports only on tcp/udp, ICMP ignoring ports, rules in order", () => {
    const cfg: WireFirewallConfig = {
      default_policy: "DENY",
      rules: [
        {
          id: 7,
          source_addrs: [{ address: "ip", ip: "203.0.113.2" }],
          destination_addrs: [{ address: "ip_subnet", ip_subnet: "192.0.2.0/24" }],
          destination_ports: [{ port: "single_port", single_port: 443 }, { port: "port_range", port_range: { start: 8000, end: 8080 } }],
          protocols: ["TCP", "UDP", "ICMP"],
          verdict: "ALLOW",
          comment: "web",
          ip_version: "IPV4",
        },
        { id: 8, destination_addrs: [{ address: "ip", ip: "192.0.2.10" }], verdict: "DENY", ip_version: "IPV4" },
      ],
    };
    const { script } = buildFirewall("wg0", cfg);
    const ports = nftSetName("inet_service", ["443", "8000-8080"]);
    expect(ports).toMatch(/^p_[0-9a-f]{20}$/);
    expect(forwardRules(script).slice(2)).toEqual([
      `meta nfproto ipv4 ip saddr 203.0.113.2 ip daddr 192.0.2.0/24 tcp dport @${ports} accept comment "web"`,
      `meta nfproto ipv4 ip saddr 203.0.113.2 ip daddr 192.0.2.0/24 udp dport @${ports} accept comment "web"`,
      'meta nfproto ipv4 ip saddr 203.0.113.2 ip daddr 192.0.2.0/24 meta l4proto icmp accept comment "web"',
      "meta nfproto ipv4 ip daddr 192.0.2.10 drop",
    ]);
    // One interval is written inline; a longer list is a named set, named by its content.
    expect(script).toContain(`set ${ports} {\n\t\ttype inet_service\n\t\tflags interval\n\t\telements = { 443, 8000-8080 }\n\t}`);
    expect(script.match(/^\tset /gm)).toHaveLength(1);
  });

  it("ports without protocols mean TCP and UDP; protocols without ports match the protocol", () => {
    const { script } = buildFirewall("wg0", {
      rules: [
        { destination_ports: [{ port: "single_port", single_port: 53 }], verdict: "ALLOW" },
        { protocols: ["UDP"], verdict: "ALLOW" },
        { protocols: [17], verdict: 0, ip_version: 1 },
      ],
    });
    expect(forwardRules(script).slice(2)).toEqual([
      "meta nfproto ipv4 tcp dport 53 accept",
      "meta nfproto ipv4 udp dport 53 accept",
      "meta nfproto ipv4 meta l4proto udp accept",
      "meta nfproto ipv6 meta l4proto udp accept",
    ]);
  });

  it("IPv6 rules use ip6 and ipv6 sets; ICMP becomes ipv6-icmp", () => {
    const { script } = buildFirewall("wg0", {
      rules: [
        {
          source_addrs: [{ address: "ip_range", ip_range: { start: "2001:db8::10", end: "2001:db8::1" } }, { ip: "2001:db8::20" }],
          destination_addrs: [{ ip_subnet: "2001:db8:5::/64" }],
          protocols: ["ICMP"],
          verdict: "ALLOW",
          ip_version: "IPV6",
        },
      ],
    });
    expect(script).toContain("type ipv6_addr");
    expect(script).toContain("elements = { 2001:db8::1-2001:db8::10, 2001:db8::20 }");
    const src = nftSetName("ipv6_addr", ["2001:db8::1-2001:db8::10", "2001:db8::20"]);
    expect(src).toMatch(/^a6_/);
    expect(forwardRules(script)[2]).toBe(`meta nfproto ipv6 ip6 saddr @${src} ip6 daddr 2001:db8:5::/64 meta l4proto ipv6-icmp accept`);
  });

  it("merges overlapping addresses and ports so nft never sees conflicting intervals", () => {
    const { script } = buildFirewall("wg0", {
      rules: [
        {
          source_addrs: [
            { address: "ip_subnet", ip_subnet: "203.0.113.0/28" },
            { address: "ip", ip: "203.0.113.5" },
            { address: "ip_range", ip_range: { start: "203.0.113.16", end: "203.0.113.20" } },
            { address: "ip", ip: "203.0.113.200" },
          ],
          destination_ports: [{ port: "single_port", single_port: 80 }, { port: "port_range", port_range: { start: 79, end: 81 } }],
          protocols: ["TCP"],
          verdict: "ALLOW",
        },
      ],
    });
    expect(script).toContain("elements = { 203.0.113.0-203.0.113.20, 203.0.113.200 }");
    expect(script).toContain("tcp dport 79-81 accept");
  });

  it("leaves out a rule whose addresses are all of the other family instead of widening it to any", () => {
    const { script, skipped } = buildFirewall("wg0", {
      rules: [
        { id: 1, source_addrs: [{ address: "ip", ip: "2001:db8::1" }], verdict: "ALLOW", ip_version: "IPV4" },
        { id: 2, destination_addrs: [{ address: "ip_subnet", ip_subnet: "not-an-ip" }], verdict: "ALLOW" },
        { id: 3, protocols: ["INVALID"], verdict: "ALLOW" },
      ],
    });
    expect(forwardRules(script)).toHaveLength(2);
    expect(skipped).toHaveLength(3);
    expect(skipped[0]).toContain("rule 1");
  });

  it("SNAT bindings go to a postrouting nat chain, per family of the public IP", () => {
    const { script } = buildFirewall("wg-dgt", {
      snat_bindings: [
        { id: 1, source_addrs: [{ address: "ip_subnet", ip_subnet: "203.0.113.0/24" }], public_ip: "198.51.100.1", comment: "egress" },
        { id: 2, public_ip: "2001:db8::1" },
      ],
    });
    expect(script).toContain("type nat hook postrouting priority srcnat; policy accept;");
    expect(script).toContain('meta nfproto ipv4 ip saddr 203.0.113.0/24 oifname != "wg-dgt" snat ip to 198.51.100.1 comment "egress"');
    expect(script).toContain('meta nfproto ipv6 iifname "wg-dgt" oifname != "wg-dgt" snat ip6 to 2001:db8::1');
  });

  it("accepts proto-loader shapes without the oneof discriminator", () => {
    const { script } = buildFirewall("wg0", {
      rules: [{ source_addrs: [{ ip: "203.0.113.7" }], destination_ports: [{ port_range: { start: 10, end: 12 } }], protocols: ["TCP"], verdict: "ALLOW" }],
    });
    expect(script).toContain("ip saddr 203.0.113.7 tcp dport 10-12 accept");
  });
});

describe("helpers", () => {
  it("table names are nft identifiers", () => {
    expect(firewallTableName("wg-dgt.1")).toBe("defguard_wg_dgt_1");
  });
  it("comments cannot break out of their quotes", () => {
    expect(nftComment('a "b" \\ c\nd')).toBe("a b c d");
    expect(nftComment("x".repeat(300))).toHaveLength(128);
  });
  it("merges intervals", () => {
    expect(mergeIntervals([{ start: 5n, end: 9n }, { start: 1n, end: 3n }, { start: 4n, end: 4n }, { start: 20n, end: 21n }])).toEqual([
      { start: 1n, end: 9n },
      { start: 20n, end: 21n },
    ]);
    expect(portElements([{ single_port: 70000 }, { port_range: { start: 9, end: 2 } }])).toEqual(["2-9"]);
  });
});

describe("commonRules (what an incremental update keeps of the forward chain)", () => {
  /** Whether `kept` (b index → a index) is a common subsequence: equal texts, increasing on both sides. */
  const valid = (a: string[], b: string[], kept: Map<number, number>) => {
    const pairs = [...kept].sort((x, y) => x[0] - y[0]);
    return pairs.every(([j, i], k) => a[i] === b[j] && (k === 0 || (pairs[k - 1][0] < j && pairs[k - 1][1] < i)));
  };
  /** The length of a longest common subsequence, by dynamic programming (small inputs). */
  const lcs = (a: string[], b: string[]) => {
    const d = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
    for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) d[i][j] = a[i - 1] === b[j - 1] ? d[i - 1][j - 1] + 1 : Math.max(d[i - 1][j], d[i][j - 1]);
    return d[a.length][b.length];
  };

  it("keeps every rule but the one that moved", () => {
    const a = Array.from({ length: 1000 }, (_, i) => `rule ${i}`);
    const b = [...a.slice(0, 300), ...a.slice(301), "rule 300 edited"];
    const kept = commonRules(a, b);
    expect(kept.size).toBe(999);
    expect(valid(a, b, kept)).toBe(true);
    const moved = [...a.slice(0, 10), ...a.slice(11), a[10]];
    expect(commonRules(a, moved).size).toBe(999);
  });

  it("is a longest common subsequence when texts are unique, and a valid one with repeated texts (random lists)", () => {
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    for (let round = 0; round < 200; round++) {
      const alphabet = round % 2 ? 1000 : 6; // unique-ish texts, then many repeats
      const a = Array.from({ length: rnd(30) }, () => `r${rnd(alphabet)}`);
      const b = a.filter(() => rnd(5) > 0).map((x) => (rnd(6) ? x : `r${rnd(alphabet)}`));
      for (let k = rnd(4); k > 0; k--) b.splice(rnd(b.length + 1), 0, `r${rnd(alphabet)}`);
      const kept = commonRules(a, b);
      expect(valid(a, b, kept)).toBe(true);
      if (new Set(a).size === a.length && new Set(b).size === b.length) expect(kept.size).toBe(lcs(a, b));
    }
  });

  it("a rule moved to the end of a long chain is one delete and one add, not the rules between", () => {
    const many = (ids: number[]) => withRules(ids.map((i) => rule(i, [`203.0.113.${i % 200}`, `203.0.113.${(i % 200) + 1}`])));
    const ids = Array.from({ length: 400 }, (_, i) => i + 1);
    const from = firewallModel("wg-big", many(ids)).model;
    const to = firewallModel("wg-big", many([...ids.filter((i) => i !== 50), 401])).model;
    const handles = Array.from({ length: 2 + from.forward.length }, (_, k) => 10 + k);
    const lines = incrementalScript(from, to, handles)!.trim().split("\n");
    const ruleLines = lines.filter((l) => /^(delete|add|insert) rule /.test(l));
    expect(ruleLines.filter((l) => l.startsWith("delete rule"))).toHaveLength(from.forward.length - to.forward.length + ruleLines.filter((l) => !l.startsWith("delete")).length);
    expect(ruleLines.length).toBeLessThanOrEqual(4);
    expect(lines.some((l) => l.startsWith("flush chain"))).toBe(false);
  });
});

const rule = (id: number, src: string[], extra: Partial<import("./firewall").WireFirewallRule> = {}) => ({
  id,
  source_addrs: src.map((ip) => (ip.includes("/") ? { address: "ip_subnet" as const, ip_subnet: ip } : { address: "ip" as const, ip })),
  destination_addrs: [{ address: "ip_subnet" as const, ip_subnet: "198.51.100.0/26" }, { address: "ip" as const, ip: "198.51.100.200" }],
  destination_ports: [{ port: "single_port" as const, single_port: 22 }, { port: "port_range" as const, port_range: { start: 8000, end: 8100 } }],
  protocols: ["TCP"],
  verdict: "ALLOW",
  comment: `ACL ${id}`,
  ip_version: "IPV4",
  ...extra,
});
const base: WireFirewallConfig = {
  default_policy: "DENY",
  rules: [
    rule(1, ["203.0.113.2", "203.0.113.3"]),
    rule(2, ["203.0.113.4", "203.0.113.9"]),
    rule(3, ["203.0.113.2", "203.0.113.3"], { protocols: ["UDP", "ICMP"] }),
    rule(4, ["2001:db8:7::2", "2001:db8:7::9"], { ip_version: "IPV6", destination_addrs: [{ address: "ip_subnet", ip_subnet: "2001:db8:5::/64" }, { ip: "2001:db8:6::1" }] }),
    { id: 5, destination_addrs: [{ address: "ip_subnet", ip_subnet: "198.51.100.0/26" }, { ip: "198.51.100.200" }], verdict: "DENY", comment: "ACL 5 DENY", ip_version: "IPV4" },
  ],
  snat_bindings: [{ id: 1, source_addrs: [{ ip: "203.0.113.2" }, { ip: "203.0.113.3" }], public_ip: "198.51.100.1" }],
};
const withRules = (rules: WireFirewallConfig["rules"], more: Partial<WireFirewallConfig> = {}): WireFirewallConfig => ({ ...base, rules, ...more });
const r = base.rules!;
const pairs: [string, WireFirewallConfig, WireFirewallConfig][] = [
  ["a rule added in the middle", base, withRules([r[0], r[1], rule(9, ["203.0.113.40", "203.0.113.41"]), r[2], r[3], r[4]])],
  ["a rule added first and one last", base, withRules([rule(9, ["203.0.113.40", "203.0.113.41"]), ...r, rule(10, ["203.0.113.50"])])],
  ["a rule removed (its set was its own)", base, withRules([r[0], r[2], r[3], r[4]])],
  ["a rule removed (its set is shared and stays)", base, withRules([r[1], r[2], r[3], r[4]])],
  ["rules reordered", base, withRules([r[2], r[0], r[4], r[3], r[1]])],
  ["a source set changed", base, withRules([r[0], rule(2, ["203.0.113.4", "203.0.113.9", "203.0.113.200"]), r[2], r[3], r[4]])],
  ["a source set shrunk to one address (inline)", base, withRules([r[0], rule(2, ["203.0.113.4"]), r[2], r[3], r[4]])],
  ["the policy flipped", base, { ...base, default_policy: "ALLOW" }],
  ["IPv4-only rules replaced by IPv6-only ones", base, withRules([r[3], rule(11, ["2001:db8:7::20", "2001:db8:7::21"], { ip_version: "IPV6", destination_addrs: [{ ip: "2001:db8:5::1" }] })])],
  ["every rule removed", base, withRules([])],
  ["rules from none", withRules([]), base],
  ["a SNAT binding changed", base, { ...base, snat_bindings: [{ id: 1, source_addrs: [{ ip: "203.0.113.2" }, { ip: "203.0.113.8" }], public_ip: "198.51.100.1" }] }],
  ["the SNAT bindings removed", base, { ...base, snat_bindings: [] }],
  ["SNAT bindings added", { ...base, snat_bindings: [] }, { ...base, snat_bindings: [...base.snat_bindings!, { id: 2, public_ip: "2001:db8::1" }] }],
  ["a rule moved to the end (a deployed edit gets a new id)", base, withRules([r[1], r[2], r[3], r[4], r[0]])],
  ["rules moved, one changed, one added between them", base, withRules([r[3], r[0], rule(2, ["203.0.113.4", "203.0.113.9"]), r[4], rule(12, ["203.0.113.60", "203.0.113.61"]), r[2]])],
  ["nothing in common", base, { default_policy: "ALLOW", rules: [rule(20, ["203.0.113.100", "203.0.113.101"], { verdict: "DENY" })] }],
];

describe("firewallModel with a cache of rule fragments", () => {
  it.each(pairs)("gives what a fresh build gives, reusing the fragments of unchanged rules: %s", (_what, a, b) => {
    const cache: FirewallModelCache = new Map();
    firewallModel("wg-inc", a, cache);
    const before = new Set(cache.values());
    const cached = firewallModel("wg-inc", b, cache);
    expect(cached).toEqual(firewallModel("wg-inc", b));
    // The cache now holds exactly this config's rules; unchanged ones kept their fragment.
    expect(cache.size).toBe(new Set((b.rules ?? []).map((r) => JSON.stringify(r))).size);
    const unchanged = (b.rules ?? []).filter((r) => (a.rules ?? []).some((x) => JSON.stringify(x) === JSON.stringify(r)));
    expect([...cache.values()].filter((f) => before.has(f))).toHaveLength(new Set(unchanged.map((r) => JSON.stringify(r))).size);
  });

  it("keeps log lines of rules left out, and of rules without an id at their position", () => {
    const cfg: WireFirewallConfig = {
      rules: [
        { source_addrs: [{ ip: "2001:db8::1" }], verdict: "ALLOW", ip_version: "IPV4" },
        { id: 7, protocols: ["INVALID"], verdict: "ALLOW" },
      ],
    };
    const cache: FirewallModelCache = new Map();
    const first = firewallModel("wg0", cfg, cache);
    expect(first.skipped).toEqual(["rule 1: no IPv4 source address", "rule 7: no known protocol"]);
    const moved = { rules: [{ id: 8, verdict: "ALLOW" }, ...cfg.rules!] };
    expect(firewallModel("wg0", moved, cache)).toEqual(firewallModel("wg0", moved));
    expect(firewallModel("wg0", moved, cache).skipped).toEqual(["rule 2: no IPv4 source address", "rule 7: no known protocol"]);
  });
});

/**
 * The scripts in a real kernel: a network namespace of this test run and `nft -f -` in it, as
 * the agent runs it. Root and nft only; skipped with a printed reason otherwise.
 */
const nftUnavailable = (() => {
  if (process.platform !== "linux") return `not Linux (${process.platform})`;
  if (typeof process.getuid === "function" && process.getuid() !== 0) return "not root (network namespaces need root)";
  for (const c of ["ip", "nft"]) if (spawnSync("sh", ["-c", `command -v ${c}`], { stdio: "ignore" }).status !== 0) return `no ${c} command`;
  return null;
})();
if (nftUnavailable) console.log(`[firewall] skipping the nft tests in a namespace: ${nftUnavailable}`);

describe.skipIf(nftUnavailable !== null)("the scripts in nftables (a private network namespace)", () => {
  const ns = `dgt-fwt-${process.pid}`;
  const nft = (args: string[], input?: string) => spawnSync("ip", ["netns", "exec", ns, "nft", ...args], { input, encoding: "utf8" });
  const apply = (script: string) => nft(["-f", "-"], script);
  /** Tables, and for one table its chains' policies, rules and set elements, from `nft -j`. */
  const ruleset = () => {
    const r = nft(["-j", "list", "ruleset"]);
    expect(r.status, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as { nftables: Record<string, Record<string, unknown>>[] }).nftables;
  };
  const tables = () => ruleset().flatMap((o) => (o.table ? [`${o.table.family} ${o.table.name}`] : []));
  const listTable = (name: string) => {
    const r = nft(["list", "table", "inet", name]);
    expect(r.status, r.stderr).toBe(0);
    return r.stdout;
  };

  const v4v6: WireFirewallConfig = {
    default_policy: "DENY",
    rules: [
      {
        id: 1,
        source_addrs: [{ address: "ip", ip: "203.0.113.2" }, { address: "ip_range", ip_range: { start: "203.0.113.10", end: "203.0.113.20" } }],
        destination_addrs: [{ address: "ip_subnet", ip_subnet: "198.51.100.0/26" }, { ip: "198.51.100.200" }],
        destination_ports: [{ port: "single_port", single_port: 8080 }, { port: "port_range", port_range: { start: 9000, end: 9100 } }],
        protocols: ["TCP", "ICMP"],
        verdict: "ALLOW",
        comment: "ACL 1 - web ALLOW",
        ip_version: "IPV4",
      },
      {
        id: 1,
        source_addrs: [{ address: "ip_subnet", ip_subnet: "2001:db8:7::/120" }, { address: "ip", ip: "2001:db8:7::1:2" }],
        destination_addrs: [{ address: "ip_range", ip_range: { start: "2001:db8:5::2", end: "2001:db8:5::ff" } }],
        destination_ports: [{ port: "single_port", single_port: 8080 }],
        protocols: ["TCP", "UDP", "ICMP"],
        verdict: "ALLOW",
        comment: "ACL 1 - web ALLOW",
        ip_version: "IPV6",
      },
      { id: 1, destination_addrs: [{ ip: "198.51.100.200" }, { address: "ip_subnet", ip_subnet: "198.51.100.0/26" }], verdict: "DENY", comment: "ACL 1 - web DENY", ip_version: "IPV4" },
      { id: 1, destination_addrs: [{ address: "ip_subnet", ip_subnet: "2001:db8:5::/64" }], verdict: "DENY", comment: "ACL 1 - web DENY", ip_version: "IPV6" },
    ],
  };

  beforeAll(() => {
    const r = spawnSync("ip", ["netns", "add", ns], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
  });
  afterAll(() => {
    spawnSync("ip", ["netns", "del", ns]);
    expect(spawnSync("ip", ["netns", "list"], { encoding: "utf8" }).stdout).not.toContain(ns);
  });

  it("IPv4 and IPv6 rules load: one inet table for the interface, drop policy, established/related first, both families' sets", () => {
    const { script, skipped } = buildFirewall("wg-a", v4v6);
    expect(skipped).toEqual([]);
    const r = apply(script);
    expect(r.status, r.stderr).toBe(0);
    expect(tables()).toEqual(["inet defguard_wg_a"]);
    const listing = listTable("defguard_wg_a");
    const text = listing.replace(/\s+/g, " "); // nft wraps long element lists
    expect(text).toContain('type filter hook forward priority filter; policy drop; iifname != "wg-a" accept ct state established,related accept ');
    const r1src = nftSetName("ipv4_addr", ["203.0.113.2", "203.0.113.10-203.0.113.20"]);
    const r1dst = nftSetName("ipv4_addr", ["198.51.100.0/26", "198.51.100.200"]);
    const r1ports = nftSetName("inet_service", ["8080", "9000-9100"]);
    const r2src = nftSetName("ipv6_addr", ["2001:db8:7::/120", "2001:db8:7::1:2"]);
    expect(text).toContain(`set ${r1src} { type ipv4_addr flags interval elements = { 203.0.113.2, 203.0.113.10-203.0.113.20 } }`);
    expect(text).toContain(`set ${r1dst} { type ipv4_addr flags interval elements = { 198.51.100.0/26, 198.51.100.200 } }`);
    expect(text).toContain(`set ${r1ports} { type inet_service flags interval elements = { 8080, 9000-9100 } }`);
    expect(text).toContain(`set ${r2src} { type ipv6_addr flags interval elements = { 2001:db8:7::/120, 2001:db8:7::1:2 } }`);
    expect(text.match(/ set /g)).toHaveLength(4); // the DENY half uses the ALLOW half's set
    // The kernel's rules, in order (nft leaves out the nfproto match that ip/ip6 imply).
    const kernelRules = listing.split("\n").map((l) => l.trim()).filter((l) => / (accept|drop)( comment ".*")?$/.test(l));
    expect(kernelRules.slice(2)).toEqual([
      `ip saddr @${r1src} ip daddr @${r1dst} tcp dport @${r1ports} accept comment "ACL 1 - web ALLOW"`,
      `ip saddr @${r1src} ip daddr @${r1dst} meta l4proto icmp accept comment "ACL 1 - web ALLOW"`,
      `ip6 saddr @${r2src} ip6 daddr 2001:db8:5::2-2001:db8:5::ff tcp dport 8080 accept comment "ACL 1 - web ALLOW"`,
      `ip6 saddr @${r2src} ip6 daddr 2001:db8:5::2-2001:db8:5::ff udp dport 8080 accept comment "ACL 1 - web ALLOW"`,
      `ip6 saddr @${r2src} ip6 daddr 2001:db8:5::2-2001:db8:5::ff meta l4proto ipv6-icmp accept comment "ACL 1 - web ALLOW"`,
      `ip daddr @${r1dst} drop comment "ACL 1 - web DENY"`,
      'ip6 daddr 2001:db8:5::/64 drop comment "ACL 1 - web DENY"',
    ]);
  });

  it("a replacement swaps the whole table at once; another interface's table is untouched", () => {
    expect(apply(buildFirewall("wg-b", { default_policy: "ALLOW", rules: [] }).script).status).toBe(0);
    const next = buildFirewall("wg-a", { default_policy: "ALLOW", rules: [{ id: 9, destination_addrs: [{ ip: "2001:db8:5::9" }], verdict: "DENY", ip_version: "IPV6" }] });
    const r = apply(next.script);
    expect(r.status, r.stderr).toBe(0);
    expect(tables().sort()).toEqual(["inet defguard_wg_a", "inet defguard_wg_b"]);
    const text = listTable("defguard_wg_a");
    expect(text).toContain("policy accept;");
    expect(text).not.toContain("a6_"); // nothing of the previous table is left
    expect(text).not.toContain("set ");
    expect(text).toContain("ip6 daddr 2001:db8:5::9 drop");
    expect(listTable("defguard_wg_b")).toContain("policy accept;");
  });

  it("a script that fails part-way changes nothing: the last good table stays", () => {
    const before = listTable("defguard_wg_a");
    const good = buildFirewall("wg-a", v4v6).script;
    // A valid start (the table deleted and recreated, sets, the chain) and an error in the last rule.
    const broken = good.replace(/\n\t}\n}\n$/, "\n\t\tip saddr @no_such_set accept\n\t}\n}\n");
    expect(broken).not.toBe(good);
    const r = apply(broken);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("no_such_set");
    expect(listTable("defguard_wg_a")).toBe(before);
    expect(tables().sort()).toEqual(["inet defguard_wg_a", "inet defguard_wg_b"]);
  });
  /**
   * The table as nft reports it, without what differs between equal tables built in different
   * ways: handles, the order sets were created in.
   */
  const normalised = (name: string) => {
    const r = nft(["-j", "list", "table", "inet", name]);
    expect(r.status, r.stderr).toBe(0);
    const strip = (v: unknown): unknown =>
      Array.isArray(v) ? v.map(strip) : v && typeof v === "object" ? Object.fromEntries(Object.entries(v).filter(([k]) => k !== "handle").map(([k, x]) => [k, strip(x)])) : v;
    const objects = (JSON.parse(r.stdout) as { nftables: Record<string, { name?: string }>[] }).nftables.filter((o) => !o.metainfo).map(strip) as Record<string, { name?: string }>[];
    const sets = objects.filter((o) => o.set).sort((a, b) => (a.set.name! < b.set.name! ? -1 : 1));
    return { sets, rest: objects.filter((o) => !o.set) };
  };

  for (const withHandles of [true, false]) {
    it.each(pairs)(`an incremental update (${withHandles ? "rules replaced by handle" : "chain rewritten"}) gives the table a fresh load gives: %s`, (_what, a, b) => {
      const from = firewallModel("wg-inc", a).model;
      const to = firewallModel("wg-inc", b).model;
      expect(sameFirewall(from, to)).toBe(false);
      expect(apply(fullScript(from)).status).toBe(0);
      const handles = withHandles ? forwardHandles(nft(["-a", "list", "table", "inet", "defguard_wg_inc"]).stdout, from) : null;
      if (withHandles) expect(handles).toHaveLength(2 + from.forward.length);
      const script = incrementalScript(from, to, handles)!;
      expect(script).not.toContain("delete table");
      // Unchanged sets are not declared again.
      for (const set of from.sets) expect(script).not.toContain(`set ${set.name} {`);
      const r = apply(script);
      expect(r.status, `${r.stderr}\n${script}`).toBe(0);
      const incremental = normalised("defguard_wg_inc");
      expect(apply(fullScript(to)).status).toBe(0);
      expect(incremental).toEqual(normalised("defguard_wg_inc"));
      expect(incremental.sets.map((o) => o.set.name)).toEqual(to.sets.map((x) => x.name).sort());
    });
  }

  it("an incremental update against a table changed behind the agent's back fails and changes nothing; the whole table then applies", () => {
    const from = firewallModel("wg-inc", base).model;
    const to = firewallModel("wg-inc", withRules([r[0], rule(2, ["203.0.113.4", "203.0.113.9", "203.0.113.200"]), r[2], r[3], r[4]])).model;
    expect(apply(fullScript(from)).status).toBe(0);
    const handles = forwardHandles(nft(["-a", "list", "table", "inet", "defguard_wg_inc"]).stdout, from)!;
    // Someone deletes the rule the update is about to replace.
    expect(nft(["delete", "rule", "inet", "defguard_wg_inc", "forward", "handle", String(handles[3])]).status).toBe(0);
    const before = listTable("defguard_wg_inc");
    const r1 = apply(incrementalScript(from, to, handles)!);
    expect(r1.status).not.toBe(0);
    expect(listTable("defguard_wg_inc")).toBe(before);
    // Flushing instead of deleting by handle fails too: a set the script deletes is gone.
    const set = from.sets.find((x) => !to.sets.some((y) => y.name === x.name))!;
    const r2 = apply(`${incrementalScript(from, from, null)}delete set inet defguard_wg_inc ${set.name}\n`);
    expect(r2.status).toBe(0); // (sanity: an unused set can be deleted)
    const r3 = apply(incrementalScript(from, to, null)!);
    expect(r3.status).not.toBe(0);
    expect(apply(fullScript(to)).status).toBe(0);
    const fresh = normalised("defguard_wg_inc");
    apply(fullScript(from));
    apply(fullScript(to));
    expect(fresh).toEqual(normalised("defguard_wg_inc"));
  });

  it("forwardHandles reads the forward chain's rule handles, and refuses a chain of another size", () => {
    const m = firewallModel("wg-inc", base).model;
    expect(apply(fullScript(m)).status).toBe(0);
    const listing = nft(["-a", "list", "table", "inet", "defguard_wg_inc"]).stdout;
    const handles = forwardHandles(listing, m)!;
    expect(handles).toHaveLength(2 + m.forward.length);
    expect(new Set(handles).size).toBe(handles.length);
    expect(forwardHandles(listing, firewallModel("wg-inc", withRules(r.slice(1))).model)).toBeNull();
    expect(forwardHandles(null, m)).toBeNull();
    expect(incrementalScript(m, firewallModel("wg-other", base).model)).toBeNull();
  });
});
