/**
 * Exact-shape assertions for the contract tests: a fixture lists every key of an answer with
 * its JSON type, written from defguard 1.6.6's own types. `checkShape` reports every missing
 * key, extra key and wrongly typed value, so any drift of our answers from the fixture fails.
 *
 * Types: "string" | "number" | "boolean" | "null", a union "string|null", an array of a simple
 * type "string[]", a nested shape (object), `[shape]` for an array of objects, or
 * `oneOf(...)` for a string from a fixed set (defguard's enums).
 */
export type Simple = "string" | "number" | "boolean" | "null" | "string[]" | "number[]";
export type Union = Simple | `${Simple}|null`;
export interface OneOf {
  oneOf: readonly string[];
  nullable?: boolean;
}
export type FieldType = Union | OneOf | Shape | [Shape];
export interface Shape {
  [key: string]: FieldType;
}

export const oneOf = (...values: string[]): OneOf => ({ oneOf: values });

function jsType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

function checkSimple(value: unknown, t: Simple): boolean {
  if (t === "string[]" || t === "number[]") return Array.isArray(value) && value.every((x) => typeof x === t.slice(0, -2));
  return jsType(value) === t;
}

function checkType(value: unknown, t: FieldType, path: string, out: string[]) {
  if (typeof t === "string") {
    const ok = t.split("|").some((alt) => checkSimple(value, alt as Simple));
    if (!ok) out.push(`${path}: expected ${t}, got ${JSON.stringify(value)}`);
  } else if (Array.isArray(t)) {
    if (!Array.isArray(value)) out.push(`${path}: expected an array of objects, got ${jsType(value)}`);
    else value.forEach((item, i) => checkShapeAt(item, t[0], `${path}[${i}]`, out));
  } else if ("oneOf" in t && Array.isArray(t.oneOf)) {
    const o = t as OneOf;
    if (!(value === null && o.nullable) && !(typeof value === "string" && o.oneOf.includes(value))) {
      out.push(`${path}: expected one of ${o.oneOf.join(", ")}, got ${JSON.stringify(value)}`);
    }
  } else {
    checkShapeAt(value, t as Shape, path, out);
  }
}

function checkShapeAt(value: unknown, shape: Shape, path: string, out: string[]) {
  if (jsType(value) !== "object") {
    out.push(`${path || "answer"}: expected an object, got ${JSON.stringify(value)}`);
    return;
  }
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(shape)) {
    if (!(key in obj)) out.push(`${path}${path ? "." : ""}${key}: missing`);
    else checkType(obj[key], shape[key], `${path}${path ? "." : ""}${key}`, out);
  }
  for (const key of Object.keys(obj)) if (!(key in shape)) out.push(`${path}${path ? "." : ""}${key}: not in the fixture`);
}

/** Every difference between `value` and `shape` (empty when they match exactly). */
export function checkShape(value: unknown, shape: Shape | [Shape]): string[] {
  const out: string[] = [];
  if (Array.isArray(shape)) checkType(value, shape, "answer", out);
  else checkShapeAt(value, shape, "", out);
  return out;
}

/** The shape with the listed keys also allowed to be null (ours may be unset where defguard's never is). */
export function alsoNull(shape: Shape, keys: string[]): Shape {
  const copy: Shape = { ...shape };
  for (const k of keys) {
    const t = copy[k];
    if (typeof t === "string") copy[k] = (t.endsWith("|null") ? t : `${t}|null`) as Union;
    else if (t && !Array.isArray(t) && "oneOf" in t) copy[k] = { ...(t as OneOf), nullable: true };
  }
  return copy;
}
