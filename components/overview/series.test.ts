import { describe, expect, it } from "vitest";
import { firstRows } from "./series";

const user = (name: string, n: number) => ({ name, devices: Array.from({ length: n }, (_, i) => `${name}-${i}`) });

describe("firstRows (overview table paging)", () => {
  it("keeps whole entries while they fit and cuts the last one", () => {
    const entries = [user("a", 2), user("b", 3), user("c", 4)];
    expect(firstRows(entries, 4).map((e) => [e.name, e.devices])).toEqual([
      ["a", ["a-0", "a-1"]],
      ["b", ["b-0", "b-1"]],
    ]);
    expect(firstRows(entries, 5).map((e) => e.name)).toEqual(["a", "b"]);
    expect(firstRows(entries, 100)).toEqual(entries);
    expect(firstRows(entries, 0)).toEqual([]);
  });

  it("one user with 10,000 devices shows only the first page of them", () => {
    const rows = firstRows([user("big", 10_000)], 100);
    expect(rows).toHaveLength(1);
    expect(rows[0].devices).toHaveLength(100);
    expect(rows[0].devices[99]).toBe("big-99");
  });
});
