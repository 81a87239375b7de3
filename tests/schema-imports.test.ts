import { readdirSync, readFileSync, existsSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { addDeviceFormSchema, deviceSchema, editDeviceFormSchema, editPendingNetworkDeviceFormSchema } from "@/lib/devices/schema";

/**
 * lib/<domain>/schema.ts is shared with the browser's forms, so nothing it imports (directly or
 * through our own modules) may be a Node module.
 */
const root = resolve(__dirname, "..");
const NODE = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

function specifiers(file: string): string[] {
  const src = readFileSync(file, "utf8");
  return [...src.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/gm)].map((m) => m[1]);
}

function resolveOwn(from: string, spec: string): string | null {
  const base = spec.startsWith("@/") ? join(root, spec.slice(2)) : spec.startsWith(".") ? resolve(dirname(from), spec) : null;
  if (!base) return null;
  for (const f of [`${base}.ts`, `${base}.tsx`, join(base, "index.ts")]) if (existsSync(f)) return f;
  throw new Error(`cannot resolve ${spec} from ${from}`);
}

/** Every Node module reached from `entry`, with the chain of our files that leads to it. */
function nodeImports(entry: string): string[] {
  const seen = new Set<string>();
  const found: string[] = [];
  const walk = (file: string, chain: string[]) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const spec of specifiers(file)) {
      if (NODE.has(spec)) found.push([...chain, relative(root, file), spec].join(" → "));
      const own = resolveOwn(file, spec);
      if (own) walk(own, [...chain, relative(root, file)]);
    }
  };
  walk(entry, []);
  return found;
}

const schemas = readdirSync(join(root, "lib"), { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(root, "lib", d.name, "schema.ts")))
  .map((d) => join(root, "lib", d.name, "schema.ts"));

describe("lib/<domain>/schema.ts can be imported by the browser", () => {
  it("finds the schema modules", () => {
    expect(schemas.length).toBeGreaterThanOrEqual(10);
  });
  it.each(schemas.map((f) => [relative(root, f), f]))("%s reaches no Node module", (_, file) => {
    expect(nodeImports(file)).toEqual([]);
  });
  it("the walk does see a Node module where there is one", () => {
    expect(nodeImports(join(root, "lib/wireguard/keys.ts"))).toContain("lib/wireguard/keys.ts → node:crypto");
  });
});

describe("device forms use the API's rules", () => {
  const key = "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=";
  it("an own key is checked like the API checks it; generated needs none", () => {
    const own = addDeviceFormSchema.safeParse({ name: "laptop", description: "", method: "own", wireguard_pubkey: "nope" });
    expect(own.success ? [] : own.error.issues.map((i) => [i.path.join("."), i.message])).toEqual([["wireguard_pubkey", "invalidKey"]]);
    const empty = addDeviceFormSchema.safeParse({ name: "laptop", description: "", method: "own", wireguard_pubkey: " " });
    expect(empty.success ? [] : empty.error.issues.map((i) => i.message)).toEqual(["required"]);
    expect(addDeviceFormSchema.parse({ name: " laptop ", description: "", method: "generate", wireguard_pubkey: "" })).toMatchObject({
      name: "laptop",
      description: null,
    });
  });
  it("the edit form says the API's messages, with required for an empty key (the API says invalid)", () => {
    const issues = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
      r.success ? [] : r.error!.issues.map((i) => [i.path.join("."), i.message]);
    expect(issues(editDeviceFormSchema.safeParse({ name: "x".repeat(65), wireguard_pubkey: "" }))).toEqual([
      ["name", "tooLong"],
      ["wireguard_pubkey", "required"],
    ]);
    expect(issues(deviceSchema.safeParse({ name: "a", wireguard_pubkey: "" }))).toEqual([["wireguard_pubkey", "invalidKey"]]);
    expect(issues(editDeviceFormSchema.safeParse({ name: "a", wireguard_pubkey: "nope" }))).toEqual([["wireguard_pubkey", "invalidKey"]]);
    expect(editDeviceFormSchema.parse({ name: "a", wireguard_pubkey: ` ${key} ` }).wireguard_pubkey).toBe(key);
  });
  it("a network device waiting for the CLI may keep no key", () => {
    expect(editPendingNetworkDeviceFormSchema.parse({ name: "r1", description: "", wireguard_pubkey: "" }).wireguard_pubkey).toBeNull();
    expect(editPendingNetworkDeviceFormSchema.safeParse({ name: "r1", description: "", wireguard_pubkey: "bad" }).success).toBe(false);
  });
});
