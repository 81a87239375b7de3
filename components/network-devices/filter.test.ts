import { describe, expect, it } from "vitest";
import type { NetworkDevice } from "@/components/devices/api";
import { filterNetworkDevices, pageOf } from "./filter";

const dev = (i: number, over: Partial<NetworkDevice> = {}) =>
  ({
    id: i,
    name: `router-${i}`,
    assigned_ips: [`10.0.${Math.floor(i / 250)}.${(i % 250) + 1}`],
    location: { id: 1, name: i % 2 ? "Branch" : "HQ" },
    added_by: "admin",
    added_date: "2026-11-22T00:00:00Z",
    configured: true,
    ...over,
  }) as NetworkDevice;

describe("network devices list: search and pages", () => {
  const all = Array.from({ length: 10_000 }, (_, i) => dev(i));

  it("matches name, location, address, adder and description in any case", () => {
    expect(filterNetworkDevices(all, "ROUTER-9999").map((d) => d.id)).toEqual([9999]);
    expect(filterNetworkDevices(all, "branch")).toHaveLength(5000);
    expect(filterNetworkDevices(all, "10.0.39.250").map((d) => d.id)).toEqual([9999]);
    expect(filterNetworkDevices([dev(1, { added_by: "Ops-Team" }), dev(2)], "ops-team").map((d) => d.id)).toEqual([1]);
    expect(filterNetworkDevices([dev(1, { description: "Rack 7, Warsaw" }), dev(2)], "warsaw").map((d) => d.id)).toEqual([1]);
    expect(filterNetworkDevices(all, "  ")).toHaveLength(10_000);
    expect(filterNetworkDevices(all, "nothing-like-this")).toEqual([]);
  });

  it("lists names in natural order", () => {
    const names = filterNetworkDevices([dev(3, { name: "edge-10" }), dev(1, { name: "Edge-2" }), dev(2, { name: "edge-1" })], "").map((d) => d.name);
    expect(names).toEqual(["edge-1", "Edge-2", "edge-10"]);
  });

  it("pages of 50, the page clamped to the last one", () => {
    expect(pageOf(all, 1).rows.map((d) => d.id)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(pageOf(all, 200)).toMatchObject({ page: 200, pageCount: 200 });
    expect(pageOf(all, 200).rows[49].id).toBe(9999);
    expect(pageOf(all, 999).page).toBe(200);
    expect(pageOf([], 3)).toEqual({ rows: [], page: 1, pageCount: 1 });
  });
});
