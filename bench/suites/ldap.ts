/**
 * The two-way LDAP sync at scale against a real slapd (tests/slapd.ts) and an embedded
 * PostgreSQL started here: 10,000 users in 500 groups (every user in two groups, 40 members a
 * group) loaded with slapadd, then
 * - the first sync (imports every user, creates every group and membership in the console),
 * - a no-change sync (target: < 5 s and zero writes on either side),
 * - a sync after 100 attribute changes in LDAP.
 * Nothing here asserts anything about time. Skips with a printed reason without slapd.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { ms } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";
import { ADMIN_DN, ADMIN_PASSWORD, GROUPS_DN, groupLdif, slapdMissing, startSlapd, USERS_DN, userLdif } from "../../tests/slapd";

const USERS = Number(process.env.BENCH_LDAP_USERS || 10_000);
const GROUPS = Number(process.env.BENCH_LDAP_GROUPS || 500);

async function run(ctx: SuiteContext): Promise<Row[]> {
  const missing = slapdMissing();
  if (missing) {
    ctx.log(`ldap: skipped: ${missing}`);
    return [{ step: "skipped", reason: missing }];
  }
  const dir = mkdtempSync(join(tmpdir(), "defguard-bench-ldap-"));
  const uid = (i: number) => `user${String(i).padStart(5, "0")}`;
  const parts: string[] = [];
  for (let i = 0; i < USERS; i++) parts.push(userLdif({ uid: uid(i), first: `First${i}`, last: `Last${i}`, mail: `${uid(i)}@example.org`, password: "Bench-pass1!" }));
  const members: string[][] = Array.from({ length: GROUPS }, () => []);
  for (let i = 0; i < USERS; i++) {
    members[i % GROUPS].push(`cn=${uid(i)},${USERS_DN}`);
    members[(i * 7 + 3) % GROUPS].push(`cn=${uid(i)},${USERS_DN}`);
  }
  for (let g = 0; g < GROUPS; g++) parts.push(groupLdif(`group${String(g).padStart(3, "0")}`, [...new Set(members[g])]));
  ctx.log(`ldap: loading ${USERS} users and ${GROUPS} groups into slapd`);
  const t0 = performance.now();
  const slapd = await startSlapd({ ldif: parts.join("\n") });
  const loadMs = performance.now() - t0;

  process.env.DEFGUARD_ENCRYPTION_KEY ??= randomBytes(32).toString("hex");
  const { startEmbeddedPostgres } = await import("../../lib/db/embedded");
  const pg = await startEmbeddedPostgres(join(dir, "pg"), randomBytes(16).toString("hex"), { log: () => {} });
  try {
    process.env.DATABASE_URL = pg.url;
    const { runMigrations } = await import("../../lib/db/migrate");
    await runMigrations(pg.url);
    const { saveSettings } = await import("../../lib/settings/service");
    const { runLdapSync } = await import("../../lib/ldap/sync");
    const { getPool, closeDb } = await import("../../lib/db");
    const actor = { userId: null, username: "bench", ip: null };
    await saveSettings(
      actor,
      {
        ldap_enabled: true,
        ldap_sync_enabled: true,
        ldap_url: slapd.url,
        ldap_bind_username: ADMIN_DN,
        ldap_bind_password: ADMIN_PASSWORD,
        ldap_user_search_base: USERS_DN,
        ldap_group_search_base: GROUPS_DN,
        ldap_user_auxiliary_obj_classes: [],
        ldap_username_attr: "cn",
      },
      "patch",
    );
    const rows: Row[] = [{ step: `slapd start + slapadd of ${USERS} users, ${GROUPS} groups`, time: ms(loadMs), "LDAP writes": "-", "console writes": "-" }];
    const timed = async (step: string) => {
      const t = performance.now();
      const o = await runLdapSync();
      const took = performance.now() - t;
      if (!o.ok) throw new Error(`${step}: sync failed (${o.kind}): ${o.msg}`);
      ctx.log(`ldap: ${step}: ${ms(took)}`);
      rows.push({
        step,
        time: ms(took),
        "LDAP writes": o.summary!.ldap_writes,
        "console writes": o.summary!.console_writes,
        imported: o.summary!.users_imported,
        "memberships added": o.summary!.members_added_console,
        "LDAP read": ms(o.summary!.ldap_read_ms),
        "merge + writes": ms(o.summary!.merge_write_ms),
      });
    };
    await timed("first sync (import everything)");
    const [{ n }] = (await getPool().query("select count(*)::int n from group_users")).rows as { n: number }[];
    ctx.log(`ldap: ${n} memberships in the console`);
    await timed("no-change sync (target < 5 s, zero writes)");
    // 100 attribute changes in LDAP, then a sync that copies them.
    const { Client, Change, Attribute } = await import("ldapts");
    const c = new Client({ url: slapd.url });
    await c.bind(ADMIN_DN, ADMIN_PASSWORD);
    for (let i = 0; i < 100; i++) {
      await c.modify(`cn=${uid((i * 37) % USERS)},${USERS_DN}`, new Change({ operation: "replace", modification: new Attribute({ type: "givenName", values: [`Changed${i}`] }) }));
    }
    await c.unbind();
    await timed("sync after 100 changes in LDAP");
    await closeDb();
    return rows;
  } finally {
    await pg.stop();
    await slapd.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const suite: Suite = {
  name: "ldap",
  description: `Two-way LDAP sync against slapd: ${USERS} users in ${GROUPS} groups, first run, no-change run (target < 5 s, zero writes), 100 changes`,
  run,
};
export default suite;
