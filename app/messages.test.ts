import { describe, expect, it } from "vitest";
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

/** ICU arguments ({name}) and rich-text tags (<mono>) a translation must keep. */
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)|<(\w+)>/g)].map((m) => m[1] ?? `<${m[2]}>`).sort();

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
