/**
 * One ACL rule change end to end at the size of the `acl` suite (its scenario(): 1,000 applied
 * rules over 5,000 users, 100 groups, 100 aliases and 10,000 devices of one location with ACL on
 * and default deny), on an embedded PostgreSQL with this process's gRPC server and NOTIFY-fed hub,
 * and our agent (gateway/index.ts) serving the location with wireguard-go in a network namespace.
 *
 * The admin's way: the rule is edited (lib/acl/service.ts updateRule, what PUT /acl/rule/{id}
 * calls: one user added to or taken from the denied users of a rule that allows all users), then
 * deployed (applyRules, what PUT /acl/rule/apply calls). Timed from the deploy call's start to
 * the agent's acknowledgement of the new revision (gateway_sync, polled every 2 ms): the console
 * reading the location's inputs and compiling, the firewall update over gRPC, the agent's
 * incremental nft apply. The agent acknowledges only after nft has applied the change; after each
 * run the suite also checks in the namespace's nft table that the user's addresses left (or came
 * back into) the rule's source set. BENCH_ACL_E2E_RUNS changes (default 5), alternating;
 * BENCH_ACL_E2E=0 leaves the suite out.
 * Skipped with the reason printed without root, nft or wireguard-go. Nothing here asserts
 * anything about time. Network: 198.51.100.240/30 joins the namespace to the root namespace; the
 * location's addresses are those of the scenario (198.18.0.0/15, 2001:db8::/64).
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { generateKeyPair } from "../../lib/wireguard/keys";
import { firewallTableName } from "../../gateway/firewall";
import { hasCommand, netTestsUnavailable, nsExec } from "../../e2e/net/netns";
import { cpuMs, sleep, startAgent, startBenchConsole, stopAgents, untilAcknowledged, type Agent } from "../lib/console";
import { max, ms, percentile } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";
import { scenario } from "./acl";

const RUNS = Number(process.env.BENCH_ACL_E2E_RUNS || 5);
const TARGET = "< 1000";
const PAUSE_MS = 2000;

const stat = (v: number[]) => (v.length > 1 ? `p50 ${ms(percentile(v, 50))}, max ${ms(max(v))}` : ms(v[0]));

async function run(ctx: SuiteContext): Promise<Row[]> {
  const input = scenario();
  const skip = process.env.BENCH_ACL_E2E === "0" ? "left out by BENCH_ACL_E2E=0" : (netTestsUnavailable() ?? (hasCommand("nft") ? null : "no nft command"));
  if (skip) {
    ctx.log(`[acl-e2e] skipped: ${skip}`);
    return [{ measure: "one rule change: deploy call start → our agent acknowledged the new revision (ms)", result: `skipped: ${skip}`, target: TARGET, details: "needs root, nft and wireguard-go" }];
  }
  const c = await startBenchConsole(ctx, { tag: "acle2e", link: ["198.51.100.241", "198.51.100.242"] });
  const agents: Agent[] = [];
  try {
    if (c.netSkip) throw new Error(`no namespace: ${c.netSkip}`);
    const { pool } = c;
    const { createLocation } = await import("../../lib/locations/service");
    const { locationSchema } = await import("../../lib/locations/schema");
    const { aclRuleSchema } = await import("../../lib/acl/schema");
    const { getRule, updateRule, applyRules } = await import("../../lib/acl/service");
    const actor = { userId: null, username: "bench", ip: null };

    // The scenario straight into the database, keeping its ids (a fresh database: ids start at 1).
    const t0 = performance.now();
    const users = Math.max(...input.devices.map((d) => d.userId), ...[...input.groupMembers.values()].flat());
    await pool.query(
      `insert into users (id, username, email, first_name, last_name) select g, 'u' || g, 'u' || g || '@bench.invalid', 'User', g::text from generate_series(1, $1::int) g`,
      [users],
    );
    await pool.query(`select setval('users_id_seq', $1::int)`, [users]);
    const groupIds = [...input.groupMembers.keys()];
    await pool.query(`insert into groups (id, name) select g, 'group-' || g from unnest($1::int[]) g`, [groupIds]);
    await pool.query(`select setval('groups_id_seq', $1::int)`, [Math.max(...groupIds)]);
    const members = [...input.groupMembers].flatMap(([g, us]) => [...new Set(us)].map((u) => [g, u]));
    await pool.query(`insert into group_users (group_id, user_id) select * from unnest($1::int[], $2::int[])`, [members.map((m) => m[0]), members.map((m) => m[1])]);
    const loc = (
      await createLocation(
        actor,
        locationSchema.parse({ name: "bench-acl", address: input.addresses.join(", "), endpoint: "198.51.100.1", port: 51820, acl_enabled: true, acl_default_allow: input.defaultAllow }),
      )
    ).id;
    // Inactive devices of the scenario: not configured yet (no key), as the compiler reads them.
    const d = input.devices;
    await pool.query(
      `insert into devices (id, name, wireguard_pubkey, user_id, device_type, configured)
       select id, 'd' || id, k, u, t, k is not null from unnest($1::int[], $2::text[], $3::int[], $4::text[]) as x(id, k, u, t)`,
      [d.map((x) => x.id), d.map((x) => (x.active ? generateKeyPair().publicKey : null)), d.map((x) => x.userId), d.map((x) => x.type)],
    );
    await pool.query(`select setval('devices_id_seq', $1::int)`, [Math.max(...d.map((x) => x.id))]);
    await pool.query(`insert into device_locations (device_id, location_id, ips) select id, $1, string_to_array(ips, ',') from unnest($2::int[], $3::text[]) as x(id, ips)`, [
      loc,
      d.map((x) => x.id),
      d.map((x) => x.ips.join(",")),
    ]);
    const aliases = [...input.aliases.values()];
    await pool.query(
      `insert into acl_aliases (id, name, kind, destination, ports, protocols, state)
       select id, n, k, string_to_array(dst, ','), string_to_array(p, ','), string_to_array(pr, ',')::int[], 'applied' from unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) as x(id, n, k, dst, p, pr)`,
      [aliases.map((a) => a.id), aliases.map((a) => a.name), aliases.map((a) => a.kind), aliases.map((a) => a.destination.join(",")), aliases.map((a) => a.ports.join(",")), aliases.map((a) => a.protocols.join(","))],
    );
    await pool.query(`select setval('acl_aliases_id_seq', $1::int)`, [Math.max(...aliases.map((a) => a.id))]);
    const r = input.rules;
    await pool.query(
      `insert into acl_rules (id, name, state, allow_all_users, deny_all_users, allow_all_network_devices, deny_all_network_devices, destination, ports, protocols)
       select id, n, 'applied', au, du, an, dn, string_to_array(dst, ','), string_to_array(p, ','), string_to_array(pr, ',')::int[]
       from unnest($1::int[], $2::text[], $3::bool[], $4::bool[], $5::bool[], $6::bool[], $7::text[], $8::text[], $9::text[]) as x(id, n, au, du, an, dn, dst, p, pr)`,
      [
        r.map((x) => x.id),
        r.map((x) => x.name),
        r.map((x) => x.allowAllUsers),
        r.map((x) => x.denyAllUsers),
        r.map((x) => x.allowAllNetworkDevices),
        r.map((x) => x.denyAllNetworkDevices),
        r.map((x) => x.destination.join(",")),
        r.map((x) => x.ports.join(",")),
        r.map((x) => x.protocols.join(",")),
      ],
    );
    await pool.query(`select setval('acl_rules_id_seq', $1::int)`, [Math.max(...r.map((x) => x.id))]);
    await pool.query(`insert into acl_rule_locations (rule_id, location_id) select unnest($1::int[]), $2`, [r.map((x) => x.id), loc]);
    const rel = async (table: string, col: string, pick: (x: (typeof r)[number]) => [number[], boolean][]) => {
      const rows = r.flatMap((x) => pick(x).flatMap(([ids, allow]) => [...new Set(ids)].map((id) => [x.id, id, allow] as const)));
      await pool.query(`insert into ${table} (rule_id, ${col}, allow) select * from unnest($1::int[], $2::int[], $3::bool[])`, [rows.map((x) => x[0]), rows.map((x) => x[1]), rows.map((x) => x[2])]);
    };
    await rel("acl_rule_users", "user_id", (x) => [
      [x.allowedUsers, true],
      [x.deniedUsers, false],
    ]);
    await rel("acl_rule_groups", "group_id", (x) => [
      [x.allowedGroups, true],
      [x.deniedGroups, false],
    ]);
    await rel("acl_rule_devices", "device_id", (x) => [
      [x.allowedDevices, true],
      [x.deniedDevices, false],
    ]);
    const ra = r.flatMap((x) => [...new Set(x.aliases)].map((a) => [x.id, a]));
    await pool.query(`insert into acl_rule_aliases (rule_id, alias_id) select * from unnest($1::int[], $2::int[])`, [ra.map((x) => x[0]), ra.map((x) => x[1])]);
    ctx.log(`[acl-e2e] scenario seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s: ${r.length} rules, ${users} users, ${groupIds.length} groups, ${d.length} devices, ${aliases.length} aliases`);

    // The rule to change: the first that allows all users; the user: one with active user
    // devices, neither denied by that rule nor in a group it denies.
    const rule = r.find((x) => x.allowAllUsers && x.destination.some((dst) => !dst.includes(":")))!;
    const deniedByGroup = new Set(rule.deniedGroups.flatMap((g) => input.groupMembers.get(g) ?? []));
    const userDevices = (u: number) => d.filter((x) => x.userId === u);
    const victim = [...Array(users).keys()]
      .map((i) => users - i)
      .find((u) => !rule.deniedUsers.includes(u) && !deniedByGroup.has(u) && userDevices(u).length > 0 && userDevices(u).every((x) => x.active && x.type === "user"))!;
    const victimV4 = userDevices(victim).map((x) => x.ips.find((ip) => !ip.includes(":"))!);
    ctx.log(`[acl-e2e] changing rule ${rule.id} (allow all users): user ${victim} (${victimV4.join(", ")}) denied and allowed again in turn`);

    const grpcPort = await c.serve();
    const agent = startAgent(ctx, c, { loc, ifname: `wg-acl-${c.sfx}`, hostname: `${c.ns}-gw`, grpcPort });
    agents.push(agent);
    const ts = performance.now();
    await untilAcknowledged(pool, agents, { [loc]: await c.currentRevision(loc) }, 300_000, 100);
    ctx.log(`[acl-e2e] agent up, whole table applied and acknowledged after ${((performance.now() - ts) / 1000).toFixed(1)} s`);

    const table = firewallTableName(agent.ifname);
    /** Whether the victim's addresses are in the source set of the rule's ALLOW rule in the live table. */
    const victimAllowed = async (ruleId: number): Promise<boolean> => {
      const chain = await nsExec(c.ns!, "nft", ["list", "chain", "inet", table, "forward"]);
      if (chain.code !== 0) throw new Error(`nft list chain: ${chain.stderr}`);
      const line = chain.stdout.split("\n").find((l) => l.includes(`"ACL ${ruleId} - `) && l.includes("ALLOW") && /ip saddr @/.test(l));
      const set = line ? /ip saddr @(\S+)/.exec(line)![1] : null;
      if (!set) throw new Error(`no IPv4 ALLOW rule with a source set for ACL ${ruleId} in ${table}`);
      // `nft get element` finds an address inside a merged interval too.
      const inSet: boolean[] = [];
      for (const ip of victimV4) inSet.push((await nsExec(c.ns!, "nft", ["get", "element", "inet", table, set, `{ ${ip} }`])).code === 0);
      if (inSet.some((x) => x !== inSet[0])) throw new Error(`the user's addresses are partly in @${set}`);
      return inSet[0];
    };
    let ruleId = rule.id;
    if (!(await victimAllowed(ruleId))) throw new Error(`user ${victim} is not allowed by rule ${ruleId} before the change`);

    const deployToAck: number[] = [];
    const editMs: number[] = [];
    const recorded: number[] = [];
    const agentApply: number[] = [];
    const agentCpu: number[] = [];
    const consoleCpu: number[] = [];
    const scriptBytes: number[] = [];
    let wholeTable = 0;
    for (let i = 0; i < RUNS; i++) {
      const deny = i % 2 === 0;
      const current = await getRule(ruleId);
      const deniedUsers = deny ? [...current.denied_users, victim] : current.denied_users.filter((u) => u !== victim);
      const e0 = performance.now();
      const edited = await updateRule(actor, ruleId, aclRuleSchema.parse({ ...current, denied_users: deniedUsers }));
      editMs.push(performance.now() - e0);
      const before = await c.currentRevision(loc);
      const cpu0 = cpuMs(agent.child.pid!);
      const cu0 = process.cpuUsage();
      const s = performance.now();
      await applyRules(actor, [edited.id]);
      const deployed = performance.now();
      ruleId = edited.id;
      // The deploy's transaction bumped the location's revision (lib/events/revisions.ts).
      const want = await c.currentRevision(loc);
      if (want <= before) throw new Error(`the deploy did not bump the location's revision (${before} → ${want})`);
      const acked = await untilAcknowledged(pool, agents, { [loc]: want }, 60_000, 2);
      deployToAck.push(acked - s);
      const cu = process.cpuUsage(cu0);
      consoleCpu.push((cu.user + cu.system) / 1000);
      const rec = await pool.query<{ s: number }>(`select max(seconds)::float8 s from gateway_propagation where location_id = $1 and revision = $2`, [loc, want]);
      if (rec.rows[0]?.s != null) recorded.push(rec.rows[0].s * 1000);
      // The agent's own line for it: "firewall applied (incremental, N bytes, M ms)".
      const m = [...readFileSync(agent.log, "utf8").matchAll(/firewall applied \(([^)]*?),? (\d+) ms\)/g)].pop();
      if (m) agentApply.push(Number(m[2]));
      if (m && !m[1].startsWith("incremental")) wholeTable++;
      const bytes = m ? /(\d+) bytes/.exec(m[1]) : null;
      if (bytes) scriptBytes.push(Number(bytes[1]));
      const allowed = await victimAllowed(ruleId);
      if (allowed === deny) throw new Error(`after run ${i + 1} the nft table still ${allowed ? "allows" : "denies"} user ${victim} by rule ${ruleId}`);
      ctx.log(
        `[acl-e2e] run ${i + 1} (${deny ? "deny" : "allow again"}): edit ${ms(editMs[i])} ms, deploy call ${ms(deployed - s)} ms, deploy → acknowledged ${ms(acked - s)} ms (revision ${want}), ` +
          `recorded ${rec.rows[0]?.s != null ? ms(rec.rows[0].s * 1000) : "-"} ms, console CPU ${ms(consoleCpu[i])} ms, agent: ${m ? `${m[1]}, ${m[2]} ms` : "-"}; nft table checked`,
      );
      // An admin's changes are seconds apart: the agent reads the new table's listing (rule
      // handles for the next change) after acknowledging; let it finish before the next run.
      await sleep(PAUSE_MS);
      agentCpu.push(cpuMs(agent.child.pid!) - cpu0);
      ctx.log(`[acl-e2e]   agent CPU for the change, with its nft commands and the listing after it: ${agentCpu[i]} ms`);
    }
    const n = `${r.length} rules, ${users} users, ${d.length} devices`;
    return [
      {
        measure: `one rule change (${n}): deploy call start → our agent acknowledged the new revision (ms)`,
        result: stat(deployToAck),
        target: TARGET,
        details: `${RUNS} changes (a user denied, then allowed again): console reads and compiles, gRPC firewall update, agent's incremental nft apply (in force before it acknowledges; checked in the nft table after each run); acknowledgement seen in gateway_sync, polled every 2 ms`,
      },
      { measure: "  the same, as the console records it (gateway_propagation) (ms)", result: recorded.length ? stat(recorded) : "-", target: "", details: "the samples of the location overview's p50/p95" },
      {
        measure: "  console process CPU, deploy → acknowledgement (ms)",
        result: stat(consoleCpu),
        target: "",
        details: "this process: the deploy, reading the inputs, compiling, the gRPC update's encoding, the acknowledgement (PostgreSQL's own work not included)",
      },
      {
        measure: "  the agent's firewall apply (model, script, nft -f), from its log (ms)",
        result: agentApply.length ? stat(agentApply) : "-",
        target: "",
        details:
          (wholeTable ? `${wholeTable} of ${RUNS} through the whole-table path` : "all through the incremental path") +
          (scriptBytes.length ? `, script p50 ${(percentile(scriptBytes, 50) / 1024).toFixed(1)} KiB` : ""),
      },
      {
        measure: "  agent CPU per change, with its nft commands and the listing it reads afterwards (ms)",
        result: stat(agentCpu),
        target: "",
        details: `from /proc (10 ms ticks), deploy → ${PAUSE_MS / 1000} s after the acknowledgement: less distorted by load than the times`,
      },
      { measure: "  the edit before it (updateRule, not in the figure above) (ms)", result: stat(editMs), target: "", details: "" },
    ];
  } finally {
    await stopAgents(agents);
    await c.stop();
  }
}

const suite: Suite = {
  name: "acl-e2e",
  description: "one ACL rule change at the acl suite's size, end to end: deploy → console compiles → gRPC → our agent (wireguard-go, nft in a namespace) acknowledges",
  run,
};
export default suite;
