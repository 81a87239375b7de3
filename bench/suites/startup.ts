/**
 * Start-up time of `npm start` (node scripts/start.mjs, build skipped, .next-e2e build): from
 * spawning the process to the first 200 from /api/v1/health. "fresh" is a new data directory
 * (initdb + migrations + first-start admin); "warm" is the same directory again after a clean
 * SIGTERM stop. Also reports how long the clean stop takes.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { ensureBuild, E2E_DIST_DIR } from "../../e2e/setup/build";
import { makeTempDir, startServer, type RunningServer } from "../../e2e/setup/server";
import { max, median, ms } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";

const RUNS = Number(process.env.BENCH_STARTUP_RUNS || 3);

/** The server's own "(ready in N ms)": from its main() to listening, without process start-up. */
function serverReported(s: RunningServer): number {
  const m = /console listening on .*\(ready in (\d+) ms/.exec(s.log());
  return m ? Number(m[1]) : NaN;
}

async function run(ctx: SuiteContext): Promise<Row[]> {
  await ensureBuild({ root: ctx.root, distDir: E2E_DIST_DIR, log: ctx.log });
  const fresh: number[] = [];
  const warm: number[] = [];
  const freshReported: number[] = [];
  const warmReported: number[] = [];
  const stops: number[] = [];

  for (let i = 1; i <= RUNS; i++) {
    const dir = makeTempDir("defguard-bench-startup-");
    try {
      const common = {
        root: ctx.root,
        entry: "start" as const,
        distDir: E2E_DIST_DIR,
        dataDir: join(dir, "data"),
        env: { DEFGUARD_SKIP_BUILD: "1" },
        pollMs: 10,
      };
      const a = await startServer({ ...common, logFile: join(dir, "fresh.log") });
      fresh.push(a.startupMs);
      freshReported.push(serverReported(a));
      if (!a.adminPassword) ctx.log(`[startup] warning: run ${i} printed no generated password`);
      stops.push(await a.stop());

      const b = await startServer({ ...common, logFile: join(dir, "warm.log") });
      warm.push(b.startupMs);
      warmReported.push(serverReported(b));
      stops.push(await b.stop());
      ctx.log(`[startup] run ${i}/${RUNS}: fresh ${ms(a.startupMs)} ms, warm ${ms(b.startupMs)} ms`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  const row = (what: string, v: number[], reported?: number[]): Row => ({
    case: what,
    runs: v.length,
    "median ms": ms(median(v)),
    "max ms": ms(max(v)),
    "each run ms": v.map(ms).join(" / "),
    "server-reported ready ms (median)": reported ? ms(median(reported)) : "-",
  });
  return [
    row("start, fresh data dir (initdb + migrations + admin) → health 200", fresh, freshReported),
    row("start, warm data dir (after clean stop) → health 200", warm, warmReported),
    row("clean stop (SIGTERM → process exit)", stops),
  ];
}

const suite: Suite = {
  name: "startup",
  description: "npm start (build skipped) from spawn to the first 200 from /api/v1/health",
  run,
};
export default suite;
