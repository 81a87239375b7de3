/**
 * The compiled firewall reaches the gateways: it is part of Config while ACL is on, and an open
 * Updates stream (a real gRPC client against the server and the NOTIFY-fed hub) receives a
 * firewall_config update after each input change — deploy, group membership, device added and
 * removed, user disabled, rule expiry, default policy — and disable_firewall when ACL goes off.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { secret } from "@/lib/config";
import { loadProtos, startGrpcServer, type GrpcServerHandle } from "@/lib/grpc/server";
import { startHub, stopHub, subscriberCount } from "@/lib/gateways/hub";
import { gatewayToken } from "@/lib/gateways/jwt";
import { createLocation, updateLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { createUserDevice, deleteDevice } from "@/lib/devices/service";
import { addMember, createGroup } from "@/lib/groups/service";
import { updateUser } from "@/lib/users/service";
import { generateKeyPair } from "@/lib/wireguard/keys";
import { createUser } from "@/tests/helpers";
import { parseIp } from "@/lib/net/ip";
import { parseAddressEntry } from "@/lib/net/ranges";
import { aclRuleSchema } from "./schema";
import { applyRules, createRule, expireRules } from "./service";

const ACTOR = { userId: null, username: "acl-push", ip: null };
let server: GrpcServerHandle;
let client: any;
let hq: number;
let branch: number;
const users: Record<string, number> = {};
let devGroup: number;

function md(token: string, hostname: string) {
  const m = new grpc.Metadata();
  m.set("authorization", token);
  m.set("hostname", hostname);
  return m;
}

const config = (locationId: number) =>
  new Promise<any>((res, rej) => client.Config({ name: "edge" }, md(gatewayToken(locationId, secret("gatewaySecret")), `gw-${locationId}`), (err: grpc.ServiceError | null, v: any) => (err ? rej(err) : res(v))));

function openUpdates(locationId: number, hostname: string) {
  const got: any[] = [];
  const stream = client.Updates({}, md(gatewayToken(locationId, secret("gatewaySecret")), hostname));
  stream.on("data", (u: any) => got.push(u));
  stream.on("error", () => {});
  let cursor = 0;
  return {
    got,
    stream,
    /** The next update (after the ones already taken) that satisfies `pred`. */
    async take(pred: (u: any) => boolean, what: string, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (; cursor < got.length; cursor++) {
          if (pred(got[cursor])) return got[cursor++];
        }
        if (Date.now() > deadline) throw new Error(`no ${what} update; got ${JSON.stringify(got.slice(-5))}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

const isFirewall = (u: any) => u.update === "firewall_config";
/** Source addresses of the ALLOW rules, as text. */
const allowSources = (fw: any) =>
  fw.rules
    .filter((r: any) => r.verdict === "ALLOW")
    .flatMap((r: any) => r.source_addrs.map((a: any) => a.ip ?? a.ip_subnet ?? `${a.ip_range.start}-${a.ip_range.end}`));

/** Whether an ALLOW rule's sources hold `ip` (entries may be merged into networks and ranges). */
function covers(fw: any, ip: string): boolean {
  const v = parseIp(ip)!.value;
  return fw.rules
    .filter((r: any) => r.verdict === "ALLOW")
    .some((r: any) =>
      r.source_addrs.some((a: any) => {
        const text = a.ip ?? a.ip_subnet ?? `${a.ip_range.start}-${a.ip_range.end}`;
        const e = parseAddressEntry(text);
        return e.ok && v >= e.entry.start && v <= e.entry.end;
      }),
    );
}

const location = (name: string, address: string, acl: boolean, defaultAllow = false) =>
  locationSchema.parse({ name, address, endpoint: "vpn.example.com", port: 51820, acl_enabled: acl, acl_default_allow: defaultAllow });

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const rule = (over: Record<string, unknown>) =>
  aclRuleSchema.parse({ name: "ssh", networks: [hq], allowed_groups: [], destination: "192.0.2.0/24", ports: "22", protocols: [6], ...over });

const addrOf = (created: any, locationId: number) => created.configs.find((x: any) => x.network_id === locationId)!.address[0] as string;

beforeAll(async () => {
  await startHub();
  server = await startGrpcServer("127.0.0.1", await freePort());
  const protos = loadProtos();
  client = new (protos.gateway.GatewayService as any)(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  hq = (await createLocation(ACTOR, location("HQ", "198.18.0.1/24", true))).id;
  branch = (await createLocation(ACTOR, location("Branch", "198.18.1.1/24", false))).id;
  await createUser({ username: "acl-admin", isAdmin: true });
  for (const u of ["ala", "ola"]) users[u] = (await createUser({ username: u })).id;
  devGroup = (await createGroup(ACTOR, { name: "dev", members: ["ala"], is_admin: false })).id;
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await stopHub();
});

describe("firewall to the gateways", () => {
  it("is in Config only while ACL is on", async () => {
    const on = await config(hq);
    expect(on.firewall_config).toEqual({ default_policy: "DENY", rules: [], snat_bindings: [] });
    const off = await config(branch);
    expect(off.firewall_config ?? null).toBeNull();
  });

  it("is pushed on deploy, group membership, device added/removed, user disabled, expiry, policy; disabled with ACL off", async () => {
    const u = openUpdates(hq, "gw-hq");
    const other = openUpdates(branch, "gw-branch");
    await until(() => subscriberCount(hq) === 1 && subscriberCount(branch) === 1);
    const ala1 = await createUserDevice(ACTOR, "ala", { name: "ala-laptop", wireguard_pubkey: generateKeyPair().publicKey, description: null });
    const ola1 = await createUserDevice(ACTOR, "ola", { name: "ola-laptop", wireguard_pubkey: generateKeyPair().publicKey, description: null });
    // The two devices' own updates (a firewall, then the peer) reach the stream through the event
    // listener, later on a busy machine: take them first, so the deploy's firewall is the next one.
    for (const d of [ala1, ola1]) await u.take((x) => x.update_type === "CREATE" && x.peer?.pubkey === d.device.wireguard_pubkey, "peer CREATE of a device made before the rule");

    // Deploy: a pending rule changes nothing; deploying it sends the compiled firewall.
    const r = await createRule(ACTOR, rule({ allowed_groups: [devGroup] }));
    await applyRules(ACTOR, [r.id]);
    let fw = (await u.take(isFirewall, "firewall after deploy")).firewall_config;
    expect(fw.default_policy).toBe("DENY");
    expect(fw.rules.map((x: any) => `${x.verdict} ${x.ip_version}`)).toEqual(["ALLOW IPV4", "DENY IPV4"]);
    expect(allowSources(fw)).toEqual([addrOf(ala1, hq)]);
    expect(fw.rules[0]).toMatchObject({ id: r.id, destination_addrs: [{ ip_subnet: "192.0.2.0/24" }], destination_ports: [{ single_port: 22 }], protocols: ["TCP"] });

    // Group membership: ola joins dev.
    await addMember(ACTOR, "dev", "ola");
    fw = (await u.take(isFirewall, "firewall after group change")).firewall_config;
    expect(covers(fw, addrOf(ala1, hq)) && covers(fw, addrOf(ola1, hq))).toBe(true);

    // A device added to an allowed user: the firewall with its address, then the peer (rules
    // span addresses of no peer, so the peer must not arrive before its address is placed).
    const ola2 = await createUserDevice(ACTOR, "ola", { name: "ola-phone", wireguard_pubkey: generateKeyPair().publicKey, description: null });
    fw = (await u.take(isFirewall, "firewall after device added")).firewall_config;
    expect(covers(fw, addrOf(ola2, hq))).toBe(true);
    await u.take((x) => x.update_type === "CREATE" && x.peer?.pubkey === ola2.device.wireguard_pubkey, "peer CREATE after the firewall");
    const withPhone = allowSources(fw);

    // The device removed.
    await deleteDevice(ACTOR, ola2.device.id, { userId: users.ola, isAdmin: true });
    await u.take((x) => x.update_type === "DELETE" && x.peer?.pubkey === ola2.device.wireguard_pubkey, "peer DELETE");
    fw = (await u.take(isFirewall, "firewall after device removed")).firewall_config;
    expect(allowSources(fw)).not.toEqual(withPhone);
    expect(covers(fw, addrOf(ola2, hq))).toBe(false);
    expect(covers(fw, addrOf(ala1, hq)) && covers(fw, addrOf(ola1, hq))).toBe(true);

    // The user disabled: their devices leave the sources.
    await updateUser(ACTOR, true, "ola", { username: "ola", first_name: "Test", last_name: "ola", email: "ola@example.com", phone: null, is_active: false });
    fw = (await u.take(isFirewall, "firewall after user disabled")).firewall_config;
    expect(allowSources(fw)).toEqual([addrOf(ala1, hq)]);

    // Rule expiry (the job): the rule leaves the firewall.
    const temp = await createRule(ACTOR, rule({ name: "temp", allow_all_users: true, destination: "203.0.113.9", expires: new Date(Date.now() + 3_600_000).toISOString() }));
    await applyRules(ACTOR, [temp.id]);
    fw = (await u.take(isFirewall, "firewall with the temporary rule")).firewall_config;
    expect(fw.rules.filter((x: any) => x.comment.includes("temp"))).toHaveLength(2);
    expect(await expireRules(new Date(Date.now() + 7_200_000))).toEqual([temp.id]);
    fw = (await u.take(isFirewall, "firewall after expiry")).firewall_config;
    expect(fw.rules.filter((x: any) => x.comment.includes("temp"))).toHaveLength(0);

    // Default policy: the network MODIFY carries the firewall with the new policy.
    await updateLocation(ACTOR, hq, location("HQ", "198.18.0.1/24", true, true));
    const m = await u.take((x) => x.update === "network", "network MODIFY");
    expect(m.network.firewall_config.default_policy).toBe("ALLOW");

    // ACL off: the configuration has no firewall, and the gateway is told to remove it.
    await updateLocation(ACTOR, hq, location("HQ", "198.18.0.1/24", false));
    const off = await u.take((x) => x.update === "network", "network MODIFY without firewall");
    expect(off.network.firewall_config ?? null).toBeNull();
    await u.take((x) => x.update === "disable_firewall", "disable_firewall");

    // The ACL-off location never got a firewall update.
    expect(other.got.some((x: any) => x.update === "firewall_config" || x.update === "disable_firewall")).toBe(false);
    u.stream.cancel();
    other.stream.cancel();
  });
});
