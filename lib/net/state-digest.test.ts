import { describe, expect, it } from "vitest";
import { firewallText, peerLines, peersText, stableJson, stateDifference, tamperedFirewallText } from "./state-digest";
import { canonicalFirewall as consoleCanonical } from "@/lib/gateways/sync";
import { canonicalFirewall as agentCanonical } from "@/gateway/proto";

describe("state digests", () => {
  it("peers: order of peers and allowed IPs and host-bit spelling do not matter; a changed IP does", () => {
    const a = [
      { pubkey: "B", allowed_ips: ["10.0.0.3/32", "fd00::3/128"] },
      { pubkey: "A", allowed_ips: ["10.0.0.2"] },
    ];
    const b = [
      { pubkey: "A", allowed_ips: ["10.0.0.2/32"] },
      { pubkey: "B", allowed_ips: ["fd00::3/128", "10.0.0.3/32"] },
    ];
    expect(peersText(a)).toBe(peersText(b));
    expect(peerLines(a)).toEqual(["A 10.0.0.2/32", "B 10.0.0.3/32,fd00::3/128"]);
    expect(peersText([{ pubkey: "A", allowed_ips: ["10.0.0.9/32"] }, b[1]])).not.toBe(peersText(b));
  });

  it("stable JSON sorts keys but keeps array order", () => {
    expect(stableJson({ b: 1, a: [2, 1], c: undefined })).toBe('{"a":[2,1],"b":1}');
  });

  it("the console and the agent digest the same firewall the same, absent fields as defaults", () => {
    const sparse = { default_policy: "DENY", rules: [{ id: 1, source_addrs: [{ ip: "10.0.0.2" }], destination_ports: [{ single_port: 22 }], protocols: ["TCP"], verdict: "ALLOW" }] };
    const full = {
      default_policy: "DENY",
      rules: [
        { id: 1, source_addrs: [{ ip: "10.0.0.2" }], destination_addrs: [], destination_ports: [{ single_port: 22 }], protocols: ["TCP"], verdict: "ALLOW", ip_version: "IPV4" },
      ],
      snat_bindings: [],
    };
    const c = firewallText(consoleCanonical(sparse));
    expect(firewallText(agentCanonical(full))).toBe(c);
    expect(firewallText(agentCanonical(agentCanonical(sparse)))).toBe(c);
    expect(firewallText(consoleCanonical({ ...sparse, default_policy: "ALLOW" }))).not.toBe(c);
    expect(firewallText(null)).toBe("off");
    expect(tamperedFirewallText("table inet x {}")).not.toBe(c);
  });

  it("the difference lists missing, unexpected and changed peers", () => {
    const d = stateDifference(
      [
        { pubkey: "A", allowed_ips: ["10.0.0.2/32"] },
        { pubkey: "B", allowed_ips: ["10.0.0.3/32"] },
      ],
      [
        { pubkey: "B", allowed_ips: ["10.0.0.4/32"] },
        { pubkey: "C", allowed_ips: ["10.0.0.5/32"] },
      ],
      true,
    );
    expect(d).toEqual({
      missing: ["A"],
      unexpected: ["C"],
      allowed_ips: [{ pubkey: "B", expected: "10.0.0.3/32", actual: "10.0.0.4/32" }],
      missing_count: 1,
      unexpected_count: 1,
      allowed_ips_count: 1,
      firewall: true,
    });
  });
});
