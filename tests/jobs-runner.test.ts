/**
 * Periodic jobs with several console processes on one database: a job runs once per interval
 * cluster-wide, whether the processes' timers fire together (advisory lock) or at different
 * moments within the interval (job_runs claim); a failed run does not count.
 */
import { describe, expect, it } from "vitest";
import { runJobOnce } from "@/lib/jobs/runner";
import { query } from "./helpers";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("job runner across processes", () => {
  it("runs a job once when several ticks fire together, and not again within the interval", async () => {
    let runs = 0;
    const job = { id: 99_000_001, name: "test-once", everyMs: 1500, run: async () => { runs++; await sleep(50); } };
    const results = await Promise.all([runJobOnce(job), runJobOnce(job), runJobOnce(job)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(runs).toBe(1);
    await sleep(300); // another process whose timer fires later in the same interval
    expect(await runJobOnce(job)).toBe(false);
    expect(runs).toBe(1);
    await sleep(1300);
    expect(await runJobOnce(job)).toBe(true);
    expect(runs).toBe(2);
    const [row] = await query<{ n: number }>("select count(*)::int n from job_runs where name = 'test-once'");
    expect(row.n).toBe(1);
  });

  it("a failed run does not claim the interval: the next tick retries", async () => {
    let attempts = 0;
    const job = { id: 99_000_002, name: "test-fail", everyMs: 60_000, run: async () => { attempts++; if (attempts === 1) throw new Error("boom"); } };
    await expect(runJobOnce(job)).rejects.toThrow("boom");
    expect(await runJobOnce(job)).toBe(true);
    expect(await runJobOnce(job)).toBe(false);
    expect(attempts).toBe(2);
  });
});
