#!/usr/bin/env node
/**
 * `node scripts/check-architecture.mjs`: the import and reference rules of
 * docs/architecture.md (run by `npm test` as one test). Prints every offending file and
 * import and exits 1 when there is one.
 *
 *  1. app/api never imports lib/db nor calls getDb(): route handlers go through services;
 *     under lib/, activity is recorded only with the change's transaction and only
 *     lib/events opens transactions.
 *  2. lib/<domain>/schema.ts (shared with browser forms) reaches no Node.js built-in, no
 *     server package and no server-only module, directly or through what it imports.
 *  3. No module under lib/ imports browser code (components/) or lib/http
 *     (lib/openapi may import its types).
 *  4. lib/http imports no domain service (only the modules in HTTP_ALLOWED).
 *  5. Modules under lib/ import each other in the one direction of LAYERS; schemas import
 *     only other schemas, lib/wireguard and the foundation.
 *  6. Server-only modules (scripts/add-server-only.mjs) start with `import "server-only"`
 *     once that sweep has been applied (the check is on when any module carries the marker).
 *  7. README, docs, code and comments point at nothing outside the repository.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  BROWSER,
  HTTP_ALLOWED,
  LAYERS,
  OUTSIDE_REFERENCES,
  SERVER_ONLY_EXEMPT,
  domainOf,
  importGraph,
  FOUNDATION,
  isBuiltin,
  isSchema,
  isServerPackage,
  isSource,
  isTest,
  layerOf,
  root,
  serverOnlyModules,
  walk,
} from "./architecture.mjs";

const problems = [];
const report = (file, line, msg) => problems.push(`${file}${line ? `:${line}` : ""}: ${msg}`);

const graph = importGraph(["app", "lib", "components", "e2e"]);
const runtime = (f) => (graph.get(f) ?? []).filter((i) => !i.typeOnly);

// 1. app/api --------------------------------------------------------------------------------
for (const [f, imports] of graph) {
  if (!f.startsWith("app/api/")) continue;
  for (const i of imports) if (i.target && (i.target === "lib/db" || i.target.startsWith("lib/db/") || i.target.startsWith("lib/db."))) report(f, i.line, `imports ${i.spec}: route handlers reach the database through a service`);
  readFileSync(join(root, f), "utf8")
    .split("\n")
    .forEach((l, n) => /\bgetDb\s*\(/.test(l) && report(f, n + 1, "calls getDb(): route handlers reach the database through a service"));
}

// 1b. one transaction style -------------------------------------------------------------------
// The activity log is written with the transaction of the change (recordActivity(tx, …) inside
// transaction() of lib/events), never straight on the pool; and only lib/events opens
// transactions (lib/jobs/runner.ts holds one for its advisory lock, around no mutation of its own).
for (const f of graph.keys()) {
  if (!f.startsWith("lib/") || isTest(f)) continue;
  readFileSync(join(root, f), "utf8")
    .split("\n")
    .forEach((l, n) => {
      if (/recordActivity\(\s*(getDb\(\)|db\b)/.test(l)) report(f, n + 1, "records activity outside the transaction of its change: use transaction() of lib/events and recordActivity(tx, …)");
      if (/\.transaction\(/.test(l) && f !== "lib/events/index.ts" && f !== "lib/jobs/runner.ts") report(f, n + 1, "opens a transaction itself: mutations go through transaction() of lib/events");
    });
}

// 2. schemas -----------------------------------------------------------------------------
const serverOnly = new Set(serverOnlyModules(graph).filter((f) => !SERVER_ONLY_EXEMPT.some((re) => re.test(f))));
/** The chain by which `f` reaches a Node.js built-in or server package, or null. */
function serverChain(f, seen = new Set()) {
  if (seen.has(f)) return null;
  seen.add(f);
  for (const i of runtime(f)) {
    if (i.target === null) {
      if (isBuiltin(i.spec) || isServerPackage(i.spec)) return [i.spec];
    } else if (i.target.startsWith("lib/")) {
      const rest = serverChain(i.target, seen);
      if (rest) return [i.target, ...rest];
    }
  }
  return null;
}
for (const f of graph.keys()) {
  if (!/^lib\/[^/]+\/schema\.ts$/.test(f)) continue;
  const chain = serverChain(f);
  if (chain) report(f, 0, `schemas are shared with the browser but this one reaches ${chain.join(" -> ")}`);
}

// 3, 4, 5. lib/ directions -----------------------------------------------------------------
for (const [f, imports] of graph) {
  if (!f.startsWith("lib/") || isTest(f)) continue;
  const from = layerOf(f);
  for (const i of imports) {
    const t = i.target;
    if (!t) continue;
    if (BROWSER.some((b) => t.startsWith(b))) {
      report(f, i.line, `imports browser code ${i.spec}`);
      continue;
    }
    if (i.typeOnly || !t.startsWith("lib/")) continue;
    const to = layerOf(t);
    if (from === "http") {
      if (to !== "http" && !HTTP_ALLOWED.includes(domainOf(to))) report(f, i.line, `lib/http imports ${i.spec}: the route wrapper knows no domain service (allowed: ${HTTP_ALLOWED.join(", ")})`);
      continue;
    }
    if (to === "http") {
      report(f, i.line, `imports ${i.spec}: services do not depend on the HTTP layer`);
      continue;
    }
    if (isSchema(f)) {
      // Schemas form their own layer under the services: other schemas and the foundation only.
      if (!isSchema(t) && !FOUNDATION.includes(domainOf(to)) && domainOf(to) !== "wireguard") report(f, i.line, `schema imports ${i.spec}: schemas import only other schemas, lib/wireguard and the foundation`);
      continue;
    }
    if (!from || !to) {
      report(f, i.line, `imports ${i.spec}: ${!from ? f : t} has no place in LAYERS (scripts/architecture.mjs, docs/architecture.md)`);
      continue;
    }
    if (domainOf(from) === domainOf(to) && !(LAYERS.includes(to) && to.includes("/") && to !== from)) continue;
    if (LAYERS.indexOf(to) >= LAYERS.indexOf(from) && to !== from) report(f, i.line, `${from} imports ${i.spec} (${to}), which comes after it in LAYERS: only lower layers may be imported`);
  }
}

// 6. server-only marker --------------------------------------------------------------------
const marked = (f) => /^\s*import\s+["']server-only["'];?\s*$/m.test(readFileSync(join(root, f), "utf8"));
const anyMarked = [...graph.keys()].some((f) => f.startsWith("lib/") && marked(f));
if (anyMarked) {
  for (const f of serverOnly) if (!marked(f)) report(f, 0, 'server-only module without `import "server-only"` (run node scripts/add-server-only.mjs)');
}
// Browser code must not reach a server-only module at run time, however indirectly (the
// browser build would fail, or worse, ship server code).
const clientRoots = [...graph.keys()].filter((f) => /^\s*["']use client["']/.test(readFileSync(join(root, f), "utf8")));
// Playwright loads its specs without the server-only resolve hook: they may not reach one either
// (e2e/net runs under vitest, which aliases the marker).
const specRoots = [...graph.keys()].filter((f) => f.startsWith("e2e/") && !f.startsWith("e2e/net/"));
const reachedFrom = new Map();
const queue = [...clientRoots, ...specRoots].map((f) => [f, f]);
while (queue.length) {
  const [f, via] = queue.shift();
  if (reachedFrom.has(f)) continue;
  reachedFrom.set(f, via);
  for (const i of runtime(f)) if (i.target && graph.has(i.target)) queue.push([i.target, f]);
}
for (const f of serverOnly) {
  if (!reachedFrom.has(f)) continue;
  const chain = [f];
  while (chain.length < 20 && reachedFrom.get(chain[0]) !== chain[0]) chain.unshift(reachedFrom.get(chain[0]));
  report(f, 0, `server-only module reached from browser code or a Playwright spec: ${chain.join(" -> ")}`);
}

// 7. references outside the repository --------------------------------------------------------
const textFiles = [
  "README.md",
  ...walk("docs", (f) => f.endsWith(".md")),
  ...["app", "lib", "components", "tests", "e2e", "gateway", "bench", "scripts", "types", "drizzle", "proto", "messages"].flatMap((d) =>
    walk(d, (f) => isSource(f) || /\.(sql|proto|md|css)$/.test(f)),
  ),
  ...walk(".", (f) => !f.includes("/") && /\.(ts|mjs|json)$/.test(f) && f !== "package-lock.json"),
];
for (const f of new Set(textFiles.map((f) => f.replace(/^\.\//, "")))) {
  if (f === "scripts/architecture.mjs") continue; // holds the patterns themselves
  let text;
  try {
    text = readFileSync(join(root, f), "utf8");
  } catch {
    continue;
  }
  text.split("\n").forEach((l, n) => {
    for (const r of OUTSIDE_REFERENCES) if (r.re.test(l)) report(f, n + 1, `points outside the repository (${r.what}): ${l.trim().slice(0, 120)}`);
  });
}

if (problems.length) {
  console.log(problems.join("\n"));
  console.log(`\ncheck-architecture: ${problems.length} problem(s) (rules: docs/architecture.md)`);
  process.exitCode = 1;
} else {
  console.log(`check-architecture: ${graph.size} modules, no problem`);
}
