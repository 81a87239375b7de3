import { describe, expect, it } from "vitest";
import { parse, TYPE, type MessageFormatElement } from "@formatjs/icu-messageformat-parser";
import en from "@/messages/en.json";
import ko from "@/messages/ko.json";
import pl from "@/messages/pl.json";

type Tree = { [key: string]: string | Tree };

function leaves(tree: Tree, prefix = ""): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(tree)) {
    const path = prefix ? `${prefix}.${k}` : k;
    if (typeof v === "string") out.set(path, v);
    else for (const [p, s] of leaves(v, path)) out.set(p, s);
  }
  return out;
}

/**
 * The ICU arguments ({name}) and rich-text tags (<mono>) a message uses, as a sorted set: a
 * translation must keep them all. Parsed properly, so words inside plural or select branches
 * are text, not arguments, and each language may have its own plural categories.
 */
function placeholders(message: string): string[] {
  const found = new Set<string>();
  const walk = (els: MessageFormatElement[]) => {
    for (const el of els) {
      if (el.type === TYPE.literal || el.type === TYPE.pound) continue;
      if (el.type === TYPE.tag) {
        found.add(`<${el.value}>`);
        walk(el.children);
        continue;
      }
      found.add(el.value);
      if (el.type === TYPE.plural || el.type === TYPE.select) for (const opt of Object.values(el.options)) walk(opt.value);
    }
  };
  walk(parse(message));
  return [...found].sort();
}

describe("messages", () => {
  const base = leaves(en);
  for (const [name, messages] of Object.entries({ ko, pl })) {
    it(`${name} has exactly the keys of en, each non-empty with the same arguments and tags`, () => {
      const other = leaves(messages);
      expect([...other.keys()].sort()).toEqual([...base.keys()].sort());
      for (const [key, text] of other) {
        expect(text.trim(), key).not.toBe("");
        expect(placeholders(text), key).toEqual(placeholders(base.get(key)!));
      }
    });
  }
});

describe("activity events", () => {
  it("every event the activity log records has a label in every language", async () => {
    const { ACTIVITY_EVENTS } = await import("@/lib/activity/events");
    for (const [lang, tree] of Object.entries({ en, ko, pl } as Record<string, Tree>)) {
      const labels = leaves(tree);
      const missing = ACTIVITY_EVENTS.filter((e) => !labels.get(`activity.events.${e}`)?.trim());
      expect(missing, `${lang}: activity.events without a label`).toEqual([]);
    }
  });
});
