import { describe, expect, it } from "vitest";
import { alsoNull, checkShape, oneOf, type Shape } from "./shape";

describe("checkShape (the contract tests' own helper)", () => {
  const shape: Shape = { id: "number", name: "string|null", tags: "string[]", mode: oneOf("a", "b"), sub: { x: "boolean" }, list: [{ y: "number" }] };
  const good = { id: 1, name: null, tags: ["t"], mode: "a", sub: { x: true }, list: [{ y: 2 }] };

  it("accepts an exact match", () => {
    expect(checkShape(good, shape)).toEqual([]);
  });

  it("reports missing keys, extra keys, wrong types and values outside the set, nested too", () => {
    const bad = { id: "1", tags: [1], mode: "c", sub: { x: true, z: 1 }, list: [{ y: "2" }], extra: 0 };
    expect(checkShape(bad, shape).sort()).toEqual(
      [
        'id: expected number, got "1"',
        "name: missing",
        "tags: expected string[], got [1]",
        'mode: expected one of a, b, got "c"',
        "sub.z: not in the fixture",
        'list[0].y: expected number, got "2"',
        "extra: not in the fixture",
      ].sort(),
    );
  });

  it("alsoNull widens only the named keys", () => {
    expect(checkShape({ ...good, id: null }, shape)).toEqual(["id: expected number, got null"]);
    expect(checkShape({ ...good, id: null, mode: null }, alsoNull(shape, ["id", "mode"]))).toEqual([]);
  });
});
