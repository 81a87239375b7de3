/**
 * The migration lock rule: migrations run at start-up while the console serves (other replicas
 * keep running), so a statement on a table that may be large must not lock it for a time that
 * grows with its size. On the large tables (LARGE_TABLES) once they exist, a migration may not:
 * build an index (drizzle runs migrations in a transaction, so CONCURRENTLY is impossible: add
 * the index in a new table or an online job), change a column's type or set NOT NULL (full scan or
 * rewrite under ACCESS EXCLUSIVE), add a foreign key or check constraint without NOT VALID (full
 * scan), add a column with a volatile default (rewrite), or UPDATE/DELETE every row (backfill in
 * batches from a job instead). Adding a nullable column, a column with a constant default, or
 * NOT VALID constraints is fine: catalogue-only.
 */
export const LARGE_TABLES = ["activity_log", "device_stats", "device_locations", "login_failures", "sessions", "devices", "users"] as const;

export interface Violation {
  file: string;
  table: string;
  rule: string;
  statement: string;
}

const VOLATILE = /\bdefault\s+(now\(\)|current_timestamp|clock_timestamp\(\)|random\(\)|gen_random_uuid\(\))/i;

function statements(sql: string): string[] {
  return sql
    .split(/-->\s*statement-breakpoint|;\s*\n/)
    .map((s) => s.replace(/--[^\n]*$/gm, "").trim())
    .filter(Boolean);
}

/** Check migrations (in order, [file, sql]) and return what breaks the rule. */
export function checkMigrations(files: [string, string][]): Violation[] {
  const existing = new Set<string>();
  const out: Violation[] = [];
  for (const [file, sql] of files) {
    const createdHere = new Set<string>();
    for (const st of statements(sql)) {
      const created = /^create table (?:if not exists )?"?(?:public"?\."?)?(\w+)"?/i.exec(st);
      if (created) {
        createdHere.add(created[1]);
        continue;
      }
      const target =
        /^alter table (?:only )?(?:if exists )?"?(?:public"?\."?)?(\w+)"?/i.exec(st)?.[1] ??
        /^create (?:unique )?index (?!concurrently)[\s\S]*? on (?:only )?"?(?:public"?\."?)?(\w+)"?/i.exec(st)?.[1] ??
        /^(?:update|delete from) "?(?:public"?\."?)?(\w+)"?/i.exec(st)?.[1];
      if (!target || !existing.has(target) || !(LARGE_TABLES as readonly string[]).includes(target)) continue;
      const flag = (rule: string) => out.push({ file, table: target, rule, statement: st.replace(/\s+/g, " ").slice(0, 160) });
      if (/^create (unique )?index /i.test(st)) flag("index built under lock");
      else if (/^(update|delete)/i.test(st) && !/\bwhere\b/i.test(st)) flag("whole-table update/delete");
      else if (/alter column [\s\S]*?\b(set data )?type\b/i.test(st)) flag("column type change (rewrite)");
      else if (/alter column [\s\S]*?set not null/i.test(st)) flag("SET NOT NULL (full scan)");
      else if (/add constraint [\s\S]*?(foreign key|check)/i.test(st) && !/not valid/i.test(st)) flag("constraint validated under lock (use NOT VALID)");
      else if (/add column/i.test(st) && VOLATILE.test(st)) flag("column with a volatile default (rewrite)");
    }
    for (const t of createdHere) existing.add(t);
  }
  return out;
}
