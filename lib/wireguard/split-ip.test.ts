import { describe, expect, it } from "vitest";
import { parseCidr, parseIp } from "../net/ip";
import { splitIp } from "./ip";

const split = (ip: string, cidr: string) => splitIp(parseIp(ip)!.value, parseCidr(cidr)!);

describe("splitIp (GET /device/network/ip answers)", () => {
  it("keeps the octets shared by the whole IPv4 network fixed", () => {
    expect(split("198.51.100.7", "198.51.100.1/24")).toEqual({ ip: "198.51.100.7", network_part: "198.51.100.", modifiable_part: "7", network_prefix: "24" });
    expect(split("192.0.2.2", "192.0.2.1/30")).toEqual({ ip: "192.0.2.2", network_part: "192.0.2.", modifiable_part: "2", network_prefix: "30" });
    expect(split("198.18.5.9", "198.18.0.1/16")).toEqual({ ip: "198.18.5.9", network_part: "198.18.", modifiable_part: "5.9", network_prefix: "16" });
    // /20: the third octet runs 16..31, so it is editable
    expect(split("198.18.17.4", "198.18.16.1/20")).toMatchObject({ network_part: "198.18.", modifiable_part: "17.4" });
    expect(split("203.0.113.9", "203.0.113.9/32")).toMatchObject({ network_part: "203.0.113.9.", modifiable_part: "" });
  });

  it("writes IPv6 groups zero-padded, the address itself canonical", () => {
    expect(split("2001:db8::10", "2001:db8::1/64")).toEqual({
      ip: "2001:db8::10",
      network_part: "2001:0db8:0000:0000:",
      modifiable_part: "0000:0000:0000:0010",
      network_prefix: "64",
    });
    expect(split("2001:db8::a", "2001:db8::8/125")).toMatchObject({ network_part: "2001:0db8:0000:0000:0000:0000:0000:", modifiable_part: "000a" });
  });
});
