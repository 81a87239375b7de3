#!/usr/bin/env node
/**
 * Compiles the long-lived processes to plain JavaScript, so production runs no TypeScript
 * loader: server.ts -> dist/server.js (the console) and gateway/index.ts -> dist/gateway.js
 * (the agent): ES modules holding our own code (server.ts, lib/, gateway/); packages stay in
 * node_modules and are imported at run time. `import "server-only"` compiles to nothing, as the
 * resolve hook (scripts/server-only-hook.mjs) makes it under tsx.
 *
 * The agent is one file. The console is split: what server.ts imports dynamically (the gateway
 * side, the OpenID handler) goes to dist/server-chunks/, with the code they share with the
 * start-up path, so a start does not load nor compile them before it answers. Chunk names carry
 * a content hash; a build adds its chunks before it replaces dist/server.js, and removes the
 * chunks no current build uses only once they are an hour old (a console started from the
 * previous build may still load its chunks).
 *
 *   node scripts/build-server.mjs            # both
 *   node scripts/build-server.mjs server     # one of them
 *
 * scripts/start.mjs runs this when an output is missing or older than its sources. The compiler
 * is esbuild, the one tsx (a dependency) already brings.
 */
import { createRequire } from "node:module";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export const TARGETS = { server: "server.ts", gateway: "gateway/index.ts" };
/** Targets compiled with code splitting, and the folder (under dist/) of their chunks. */
const CHUNKS = { server: "server-chunks" };
const OLD_CHUNK_MS = 60 * 60 * 1000;
/** Sources a compiled output depends on (besides node_modules). */
const SOURCES = { server: ["server.ts", "lib", "messages", "package.json", "tsconfig.json"], gateway: ["gateway", "lib", "package.json", "tsconfig.json"] };

function newestMtime(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    // Tests are not part of the output.
    if (/\.test\.tsx?$/.test(entry.name)) continue;
    newest = Math.max(newest, newestMtime(join(path, entry.name)));
  }
  return newest;
}

export function outputOf(root, name) {
  return join(root, "dist", `${name}.js`);
}

/** Whether dist/<name>.js is missing or older than one of its sources. */
export function isStale(root, name) {
  const out = outputOf(root, name);
  if (!existsSync(out)) return true;
  const built = statSync(out).mtimeMs;
  return SOURCES[name].some((p) => existsSync(join(root, p)) && newestMtime(join(root, p)) > built);
}

const emptyServerOnly = {
  name: "server-only",
  setup(build) {
    build.onResolve({ filter: /^server-only$/ }, () => ({ path: "server-only", namespace: "empty-module" }));
    build.onLoad({ filter: /.*/, namespace: "empty-module" }, () => ({ contents: "", loader: "js" }));
  },
};

/** esbuild, as tsx depends on it (hoisted or nested under tsx). */
export async function loadEsbuild(root) {
  const require = createRequire(join(root, "package.json"));
  const esbuildPath = createRequire(require.resolve("tsx/package.json")).resolve("esbuild");
  return import(pathToFileURL(esbuildPath).href);
}

/** The esbuild options for one target, written to `outdir` (also used by tests, with a metafile). */
export function buildOptions(root, name, outdir) {
  return {
    absWorkingDir: root,
    entryPoints: { [name]: TARGETS[name] },
    outdir,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    tsconfig: join(root, "tsconfig.json"),
    sourcemap: "linked",
    legalComments: "none",
    logLevel: "warning",
    plugins: [emptyServerOnly],
    // Packages written as CommonJS may still be reached through `require` in compiled code.
    banner: { js: 'import { createRequire as __dgCreateRequire } from "node:module"; const require = __dgCreateRequire(import.meta.url);' },
    ...(CHUNKS[name] ? { splitting: true, chunkNames: `${CHUNKS[name]}/[name]-[hash]` } : {}),
  };
}

export async function buildTargets(root, names = Object.keys(TARGETS)) {
  const esbuild = await loadEsbuild(root);
  // Written beside dist/ and renamed into place: a process starting meanwhile never reads half a file.
  const tmp = join(root, "dist", `.tmp-${process.pid}`);
  mkdirSync(tmp, { recursive: true });
  try {
    for (const n of names) await esbuild.build(buildOptions(root, n, tmp));
    // Chunks first, then the entry files that import them.
    const used = new Set();
    for (const dir of new Set(names.map((n) => CHUNKS[n]).filter(Boolean))) {
      mkdirSync(join(root, "dist", dir), { recursive: true });
      for (const f of existsSync(join(tmp, dir)) ? readdirSync(join(tmp, dir)) : []) {
        used.add(join(dir, f));
        renameSync(join(tmp, dir, f), join(root, "dist", dir, f));
      }
    }
    for (const n of names) {
      for (const f of [`${n}.js`, `${n}.js.map`]) if (existsSync(join(tmp, f))) renameSync(join(tmp, f), join(root, "dist", f));
    }
    const now = Date.now();
    for (const dir of new Set(names.map((n) => CHUNKS[n]).filter(Boolean))) {
      for (const f of readdirSync(join(root, "dist", dir))) {
        const p = join(root, "dist", dir, f);
        if (!used.has(join(dir, f)) && now - statSync(p).mtimeMs > OLD_CHUNK_MS) rmSync(p, { force: true });
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await esbuild.stop?.();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const names = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const unknown = names.filter((n) => !(n in TARGETS));
  if (unknown.length) {
    console.error(`unknown target(s): ${unknown.join(", ")}; known: ${Object.keys(TARGETS).join(", ")}`);
    process.exit(2);
  }
  const t0 = Date.now();
  await buildTargets(process.cwd(), names.length ? names : undefined);
  console.log(`[defguard] compiled ${(names.length ? names : Object.keys(TARGETS)).map((n) => `dist/${n}.js`).join(", ")} in ${Date.now() - t0} ms`);
}
