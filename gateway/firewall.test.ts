import { describe, expect, it } from "vitest";
import { buildFirewall, firewallTableName, mergeIntervals, nftComment, portElements, type WireFirewallConfig } from "./firewall";

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
    expect(forwardRules(script).slice(2)).toEqual([
      'meta nfproto ipv4 ip saddr @r1_src ip daddr @r1_dst tcp dport { 443, 8000-8080 } accept comment "web"',
      'meta nfproto ipv4 ip saddr @r1_src ip daddr @r1_dst udp dport { 443, 8000-8080 } accept comment "web"',
      'meta nfproto ipv4 ip saddr @r1_src ip daddr @r1_dst meta l4proto icmp accept comment "web"',
      "meta nfproto ipv4 ip daddr @r2_dst drop",
    ]);
    expect(script).toContain("set r1_src {\n\t\ttype ipv4_addr\n\t\tflags interval\n\t\telements = { 203.0.113.2 }\n\t}");
    expect(script).toContain("elements = { 192.0.2.0-192.0.2.255 }");
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
      rules: [{ source_addrs: [{ address: "ip_range", ip_range: { start: "2001:db8::10", end: "2001:db8::1" } }], protocols: ["ICMP"], verdict: "ALLOW", ip_version: "IPV6" }],
    });
    expect(script).toContain("type ipv6_addr");
    expect(script).toContain("elements = { 2001:db8::1-2001:db8::10 }");
    expect(forwardRules(script)[2]).toBe("meta nfproto ipv6 ip6 saddr @r1_src meta l4proto ipv6-icmp accept");
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
    expect(script).toContain('meta nfproto ipv4 ip saddr @s1_src oifname != "wg-dgt" snat ip to 198.51.100.1 comment "egress"');
    expect(script).toContain('meta nfproto ipv6 iifname "wg-dgt" oifname != "wg-dgt" snat ip6 to 2001:db8::1');
  });

  it("accepts proto-loader shapes without the oneof discriminator", () => {
    const { script } = buildFirewall("wg0", {
      rules: [{ source_addrs: [{ ip: "203.0.113.7" }], destination_ports: [{ port_range: { start: 10, end: 12 } }], protocols: ["TCP"], verdict: "ALLOW" }],
    });
    expect(script).toContain("elements = { 203.0.113.7 }");
    expect(script).toContain("tcp dport 10-12 accept");
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
