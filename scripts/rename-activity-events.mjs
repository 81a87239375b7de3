#!/usr/bin/env node
/**
 * Renames activity-log event names in the code after scripts/activity-event-renames.json.
 *
 *   node scripts/rename-activity-events.mjs            # re-run after a merge (safe to repeat)
 *   node scripts/rename-activity-events.mjs --all      # the first run: every rename
 *
 * Rewrites string literals that are exactly an old name ("old", 'old', `old`) in .ts/.tsx/.mjs
 * files under lib/, app/, components/, tests/ and e2e/, and the keys of `activity.events` in
 * messages/*.json. Each literal is looked up once, so chains (a → b while b → c) never apply
 * twice within one run.
 *
 * A name that is both an old name and the new name of another rename (e.g. "password_reset")
 * cannot be told apart after the first run: without --all such names are left alone and their
 * remaining occurrences are listed for a look by hand.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const { renames } = JSON.parse(readFileSync(join(root, "scripts/activity-event-renames.json"), "utf8"));
const all = process.argv.includes("--all");
const targets = new Set(Object.values(renames));
const reused = Object.keys(renames).filter((old) => targets.has(old));
const active = Object.fromEntries(Object.entries(renames).filter(([old]) => all || !targets.has(old)));

const DIRS = ["lib", "app", "components", "tests", "e2e"];
const EXT = /\.(ts|tsx|mjs)$/;

function walk(dir, out = []) {
  let entries;
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    if (name === "node_modules" || name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (EXT.test(name)) out.push(p);
  }
  return out;
}

const names = Object.keys(renames).sort((a, b) => b.length - a.length);
const literal = new RegExp(`(["'\`])(${names.join("|")})\\1`, "g");
let changedFiles = 0;
const leftovers = [];

for (const file of DIRS.flatMap((d) => walk(join(root, d)))) {
  const text = readFileSync(file, "utf8");
  const next = text.replace(literal, (m, q, name) => (active[name] ? `${q}${active[name]}${q}` : m));
  if (next !== text) {
    writeFileSync(file, next);
    changedFiles++;
    console.log(`rewrote ${relative(root, file)}`);
  }
  if (!all) {
    next.split("\n").forEach((line, i) => {
      for (const old of reused) if (line.includes(`"${old}"`) || line.includes(`'${old}'`)) leftovers.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`);
    });
  }
}

for (const name of readdirSync(join(root, "messages")).filter((n) => n.endsWith(".json"))) {
  const file = join(root, "messages", name);
  const text = readFileSync(file, "utf8");
  const data = JSON.parse(text);
  const events = data.activity?.events;
  if (!events) continue;
  let changed = false;
  const renamed = {};
  for (const [key, label] of Object.entries(events)) {
    const to = active[key];
    if (to && !(to in events && !active[to])) {
      renamed[to] = label;
      changed = true;
    } else if (!(key in renamed)) renamed[key] = label;
  }
  if (changed) {
    data.activity.events = renamed;
    writeFileSync(file, `${JSON.stringify(data, null, 2)}\n`);
    changedFiles++;
    console.log(`rewrote messages/${name} (activity.events keys)`);
  }
}

console.log(`${changedFiles} file(s) changed`);
if (leftovers.length) {
  console.log(`\nNot rewritten without --all (each is an old name and a new one): ${reused.join(", ")}. Check these by hand:`);
  for (const l of leftovers) console.log(`  ${l}`);
}
