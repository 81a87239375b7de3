/**
 * Benchmarks: `npm run bench` runs every suite in bench/suites/, `npm run bench -- startup`
 * (or several names) runs some. Prints one markdown table per suite and writes the same
 * report to bench/results/latest.md. Nothing here asserts anything about time.
 *
 * A suite is a file bench/suites/<name>.ts whose default export is a Suite (bench/lib/types.ts).
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { markdownTable } from "./lib/table";
import type { Row, Suite } from "./lib/types";

const benchDir = dirname(fileURLToPath(import.meta.url));
const root = join(benchDir, "..");

async function loadSuites(): Promise<Suite[]> {
  const dir = join(benchDir, "suites");
  const files = readdirSync(dir)
    .filter((f) => /\.(ts|mts|js|mjs)$/.test(f) && !f.startsWith("_") && !f.endsWith(".d.ts"))
    .sort();
  const suites: Suite[] = [];
  for (const f of files) {
    const mod = (await import(pathToFileURL(join(dir, f)).href)) as { default?: Suite };
    if (!mod.default?.name || typeof mod.default.run !== "function") {
      throw new Error(`bench/suites/${f} has no default export {name, description, run}`);
    }
    suites.push(mod.default);
  }
  return suites;
}

function environment(): string {
  const git = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: root, encoding: "utf8" });
  const dirty = spawnSync("git", ["status", "--porcelain"], { cwd: root, encoding: "utf8" });
  const commit = git.status === 0 ? git.stdout.trim() + (dirty.stdout.trim() ? " (with local changes)" : "") : "unknown";
  const cpu = cpus();
  return [
    `- date: ${new Date().toISOString()}`,
    `- commit: ${commit}`,
    `- node ${process.version}, ${process.platform}/${process.arch}`,
    `- ${cpu.length} × ${cpu[0]?.model.trim() ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
  ].join("\n");
}

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
  const all = await loadSuites();
  const unknown = wanted.filter((w) => !all.some((s) => s.name === w));
  if (unknown.length) {
    console.error(`unknown suite(s): ${unknown.join(", ")}; available: ${all.map((s) => s.name).join(", ")}`);
    process.exit(2);
  }
  const selected = wanted.length ? all.filter((s) => wanted.includes(s.name)) : all;
  const log = (m: string) => console.error(m);

  const sections: string[] = ["# Benchmarks", "", environment()];
  let failed = false;
  for (const suite of selected) {
    log(`[bench] ${suite.name}: ${suite.description}`);
    let rows: Row[];
    try {
      rows = await suite.run({ root, log });
    } catch (err) {
      failed = true;
      console.error(`[bench] ${suite.name} failed:`, err);
      const text = err instanceof Error ? err.message : String(err);
      const summary = text.split("\n").map((l) => l.trim()).filter((l) => /error/i.test(l)).slice(0, 3).join(" — ");
      rows = [{ error: (summary || text.split("\n")[0]).slice(0, 400) }];
    }
    sections.push("", `## ${suite.name}`, "", suite.description, "", markdownTable(rows));
  }
  const report = sections.join("\n") + "\n";
  console.log("\n" + report);
  const out = join(benchDir, "results");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "latest.md"), report);
  log(`[bench] written to bench/results/latest.md`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
