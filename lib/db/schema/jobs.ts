import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * When each periodic job last ran, cluster-wide: with several console processes (whose timers
 * are not aligned) a job runs only when its interval has passed since the last run anywhere.
 */
export const jobRuns = pgTable("job_runs", {
  name: text("name").primaryKey(),
  lastRunAt: timestamp("last_run_at", { withTimezone: true }).notNull(),
});
