import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createToastStore, InvalidToastError, nextToastId, type ToastInput } from "./store";

const info = (message: string, lifetime = 5000): ToastInput => ({ type: "info", message, lifetime });

describe("toast store", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("numbers the first toast 1 and each next one the highest held id plus one", () => {
    const store = createToastStore();
    expect(store.add(info("a"))).toBe(1);
    expect(store.add(info("b"))).toBe(2);
    expect(store.add(info("c"))).toBe(3);
    expect(store.getToasts().map((t) => t.id)).toEqual([1, 2, 3]);
  });

  it("keeps id = max + 1 after removals, not a running counter", () => {
    const store = createToastStore();
    store.add(info("a"));
    store.add(info("b"));
    store.add(info("c"));
    store.remove(3);
    expect(store.add(info("d"))).toBe(3);
    store.remove(1);
    expect(store.add(info("e"))).toBe(4);
    store.remove(2);
    store.remove(3);
    store.remove(4);
    expect(store.getToasts()).toEqual([]);
    expect(store.add(info("f"))).toBe(1);
  });

  it("computes the next id from the highest id, whatever the order", () => {
    expect(nextToastId([])).toBe(1);
    expect(nextToastId([{ id: 7 }, { id: 2 }])).toBe(8);
  });

  it("removes a toast when its lifetime is over, and not before", () => {
    const store = createToastStore();
    store.add(info("short", 1000));
    store.add(info("long", 3000));
    vi.advanceTimersByTime(999);
    expect(store.getToasts().map((t) => t.message)).toEqual(["short", "long"]);
    vi.advanceTimersByTime(1);
    expect(store.getToasts().map((t) => t.message)).toEqual(["long"]);
    vi.advanceTimersByTime(2000);
    expect(store.getToasts()).toEqual([]);
  });

  it("keeps a toast with an infinite lifetime until it is removed", () => {
    const store = createToastStore();
    const id = store.add(info("sticky", Infinity));
    vi.advanceTimersByTime(24 * 3600 * 1000);
    expect(store.getToasts()).toHaveLength(1);
    store.remove(id);
    expect(store.getToasts()).toHaveLength(0);
  });

  it("does not let an expired toast's timer remove a newer toast that reused its id", () => {
    const store = createToastStore();
    const first = store.add(info("first", 1000));
    store.remove(first);
    const second = store.add(info("second", 5000));
    expect(second).toBe(first);
    vi.advanceTimersByTime(1000);
    expect(store.getToasts().map((t) => t.message)).toEqual(["second"]);
  });

  it("rejects an empty or blank meta.customId", () => {
    const store = createToastStore();
    expect(() => store.add({ ...info("x"), meta: { customId: "" } })).toThrow(InvalidToastError);
    expect(() => store.add({ ...info("x"), meta: { customId: "   " } })).toThrow(InvalidToastError);
    expect(store.getToasts()).toEqual([]);
    expect(store.add({ ...info("x"), meta: { customId: " update-1.2 " } })).toBe(1);
  });

  it("holds at most one toast per customId", () => {
    const store = createToastStore();
    const id = store.add({ ...info("new version", Infinity), meta: { customId: "update" } });
    expect(store.add({ ...info("new version again", Infinity), meta: { customId: "update" } })).toBe(id);
    expect(store.getToasts()).toHaveLength(1);
  });

  it("rejects a lifetime that is not a positive number", () => {
    const store = createToastStore();
    expect(() => store.add(info("x", 0))).toThrow(InvalidToastError);
    expect(() => store.add(info("x", Number.NaN))).toThrow(InvalidToastError);
  });

  it("notifies subscribers on every change and replaces the snapshot", () => {
    const store = createToastStore();
    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);
    const before = store.getToasts();
    store.add(info("a", 100));
    expect(store.getToasts()).not.toBe(before);
    vi.advanceTimersByTime(100);
    expect(listener).toHaveBeenCalledTimes(2);
    unsubscribe();
    store.add(info("b"));
    expect(listener).toHaveBeenCalledTimes(2);
  });

  it("clear() drops every toast and its timer", () => {
    const store = createToastStore();
    store.add(info("a", 1000));
    store.add(info("b", 2000));
    store.clear();
    expect(store.getToasts()).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
