import { describe, expect, it } from "vitest";
import { clientAllowedIps } from "./traffic-policy";

const ADDR = ["198.51.100.1/24", "2001:db8:1::1/64"];

describe("clientAllowedIps", () => {
  it("none: the location's allowed IPs, or all traffic when it sets none", () => {
    expect(clientAllowedIps(["203.0.113.0/24"], ADDR, "none")).toEqual(["203.0.113.0/24"]);
    expect(clientAllowedIps([], ADDR, "none")).toEqual(["0.0.0.0/0", "::/0"]);
  });

  it("force_all_traffic: all traffic whatever the location says", () => {
    expect(clientAllowedIps(["203.0.113.0/24"], ADDR, "force_all_traffic")).toEqual(["0.0.0.0/0", "::/0"]);
  });

  it("disable_all_traffic: default routes are dropped, the rest kept", () => {
    expect(clientAllowedIps(["0.0.0.0/0", "203.0.113.0/24", "::/0"], ADDR, "disable_all_traffic")).toEqual(["203.0.113.0/24"]);
    expect(clientAllowedIps(["203.0.113.0/24"], ADDR, "disable_all_traffic")).toEqual(["203.0.113.0/24"]);
  });

  it("disable_all_traffic with nothing but default routes: the location's own networks", () => {
    expect(clientAllowedIps(["0.0.0.0/0", "::/0"], ADDR, "disable_all_traffic")).toEqual(["198.51.100.0/24", "2001:db8:1::/64"]);
    expect(clientAllowedIps([], ADDR, "disable_all_traffic")).toEqual(["198.51.100.0/24", "2001:db8:1::/64"]);
  });
});
