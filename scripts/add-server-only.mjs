#!/usr/bin/env node
/**
 * `node scripts/add-server-only.mjs [--check]`: puts `import "server-only";` at the top of
 * every module under lib/ that runs only on the server, so Next.js refuses to bundle it into
 * browser code. Idempotent: a module that has the line is left alone; run it again after
 * adding or merging modules. With --check it changes nothing and exits 1 when a line is
 * missing (scripts/check-architecture.mjs runs the same test).
 *
 * Which modules: those under lib/ that import, directly or through other lib/ modules, a
 * Node.js built-in or a server package (SERVER_PACKAGES in scripts/architecture.mjs), minus
 * SERVER_ONLY_EXEMPT (lib/wireguard: pure helpers also run by benchmarks and tools), plus
 * SERVER_ONLY_EXTRA (lib/config.ts: secrets and settings). Tests
 * are never marked.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SERVER_ONLY_EXEMPT, importGraph, root, serverOnlyModules } from "./architecture.mjs";

const check = process.argv.includes("--check");
const LINE = 'import "server-only";';
const marked = (text) => /^\s*import\s+["']server-only["'];?\s*$/m.test(text);

const files = serverOnlyModules(importGraph(["lib"])).filter((f) => !SERVER_ONLY_EXEMPT.some((re) => re.test(f)));
const missing = [];
for (const f of files) {
  const abs = join(root, f);
  const text = readFileSync(abs, "utf8");
  if (marked(text)) continue;
  missing.push(f);
  if (check) continue;
  // After a leading "use …" directive if there is one, else first; a leading doc comment stays
  // where it is only when it is a directive's neighbour — the import goes on the first line.
  const directive = /^(["']use [a-z ]+["'];?\n)/.exec(text);
  const next = directive ? `${directive[1]}${LINE}\n${text.slice(directive[1].length)}` : `${LINE}\n${text}`;
  writeFileSync(abs, next);
}
if (check) {
  if (missing.length) {
    console.log(missing.map((f) => `${f}: missing ${LINE}`).join("\n"));
    process.exitCode = 1;
  } else console.log(`add-server-only --check: all ${files.length} server-only modules are marked`);
} else {
  console.log(missing.length ? `marked ${missing.length} module(s):\n${missing.join("\n")}` : `nothing to do: all ${files.length} server-only modules are marked`);
}
