/**
 * Locations (networks) through the real route handlers on a real database: CRUD with the
 * location key pair (private key encrypted at rest, never in a response), validation of every
 * field (400 naming the field, nothing written) and device address assignment (docs/api.md "IP
 * assignment"): first free host per CIDR, allowed groups and their reconciliation, address
 * changes that move only what no longer fits, locations too small, and a fast-check property
 * over random create / delete / re-address sequences.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import en from "@/messages/en.json";
import { decryptSecret } from "@/lib/crypto";
import { isValidKey, publicKeyFromPrivate } from "@/lib/wireguard/keys";
import { parseCidr, parseIp } from "@/lib/net/ip";
import { isAssignable } from "@/lib/wireguard/ip";
import { createUser, query, signIn, type Jar } from "./helpers";
import {
  addressesIn,
  api,
  counts,
  expectLocationInvariants,
  ipsOf,
  locationBody,
  mkDevice,
  mkGroup,
  mkLocation,
  newKey,
  uniq,
} from "./wireguard-fixtures";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const T = (en as { validation: Record<string, string> }).validation;

let admin: Jar;
let alice: Jar;

beforeAll(async () => {
  await createUser({ username: "root", isAdmin: true });
  await createUser({ username: "alice" });
  admin = await signIn("root");
  alice = await signIn("alice");
});

async function locationRow(id: number) {
  const [row] = await query<Record<string, any>>("select * from locations where id = $1", [id]);
  return row;
}

// ------------------------------------------------------------------------------ CRUD

describe("locations CRUD", () => {
  it("POST /network → 201 with the docs/api.md shape; the key pair is generated and the private key only stored encrypted", async () => {
    const before = await counts();
    const body = locationBody({
      name: "Berlin",
      address: "10.1.0.1/24, fd00::1/64",
      allowed_ips: "10.0.0.0/8, 192.168.1.0/24,fd00::/64",
      dns: "10.1.0.1, 1.1.1.1",
      keepalive_interval: 30,
      peer_disconnect_threshold: 180,
    });
    const res = await api.createLocation(admin, body);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({
      id: expect.any(Number),
      name: "Berlin",
      address: ["10.1.0.1/24", "fd00::1/64"],
      port: 51820,
      endpoint: "vpn.example.com",
      allowed_ips: ["10.0.0.0/8", "192.168.1.0/24", "fd00::/64"],
      dns: "10.1.0.1, 1.1.1.1",
      allowed_groups: [],
      keepalive_interval: 30,
      peer_disconnect_threshold: 180,
      acl_enabled: false,
      acl_default_allow: false,
      location_mfa_mode: "disabled",
      mfa_enabled: false,
      pubkey: expect.any(String),
      connected: false,
      connected_at: null,
      gateways: [],
    });
    expect(isValidKey(res.json.pubkey)).toBe(true);

    const row = await locationRow(res.json.id);
    expect(row.prvkey_enc.startsWith("v1:")).toBe(true);
    const privateKey = decryptSecret(row.prvkey_enc);
    expect(isValidKey(privateKey)).toBe(true);
    expect(publicKeyFromPrivate(privateKey)).toBe(res.json.pubkey);
    expect(row.prvkey_enc).not.toContain(privateKey);

    // The private key appears in no answer, under no name.
    for (const r of [res, await api.getLocation(admin, res.json.id), await api.listLocations(admin)]) {
      expect(r.status).toBeLessThan(300);
      expect(r.text).not.toContain(privateKey);
      expect(r.text).not.toContain(row.prvkey_enc);
      expect(r.text).not.toMatch(/prv|priv|secret/i);
    }

    const after = await counts();
    expect(after.locations).toBe(before.locations + 1);
    const [ev] = await query<{ event: string; location: string }>(
      "select event, location from activity_log order by id desc limit 1",
    );
    expect(ev).toEqual({ event: "vpn_location_added", location: "Berlin" });
    await api.deleteLocation(admin, res.json.id);
  });

  it("every location gets its own key pair", async () => {
    const a = await mkLocation(admin, { address: "10.200.0.1/24", allowed_groups: ["admin"] });
    const b = await mkLocation(admin, { address: "10.201.0.1/24", allowed_groups: ["admin"] });
    expect(a.pubkey).not.toBe(b.pubkey);
    const [ra, rb] = [await locationRow(a.id), await locationRow(b.id)];
    expect(decryptSecret(ra.prvkey_enc)).not.toBe(decryptSecret(rb.prvkey_enc));
    await api.deleteLocation(admin, a.id);
    await api.deleteLocation(admin, b.id);
  });

  it("the legacy mfa_enabled flag maps to location_mfa_mode", async () => {
    const { location_mfa_mode: _, ...body } = locationBody({ mfa_enabled: true, allowed_groups: ["admin"] });
    const res = await api.createLocation(admin, body);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ location_mfa_mode: "internal", mfa_enabled: true });
    await api.deleteLocation(admin, res.json.id);
  });

  it("a taken name → 409 and nothing written", async () => {
    const l = await mkLocation(admin, { name: "Taken", allowed_groups: ["admin"] });
    const before = await counts();
    const res = await api.createLocation(admin, locationBody({ name: "Taken", address: "10.9.9.1/24" }));
    expect(res.status).toBe(409);
    expect(res.json.msg).toBe("name is already taken");
    expect(await counts()).toEqual(before);
    await api.deleteLocation(admin, l.id);
  });

  it("GET /network lists every location ordered by name; GET /network/{id} answers one; unknown id 404, bad id 400", async () => {
    const b = await mkLocation(admin, { name: "zz-b", allowed_groups: ["admin"] });
    const a = await mkLocation(admin, { name: "zz-a", allowed_groups: ["admin"], address: "10.2.0.1/24" });
    const list = await api.listLocations(admin);
    expect(list.status).toBe(200);
    const names = (list.json as { name: string }[]).map((l) => l.name);
    expect(names.indexOf("zz-a")).toBeLessThan(names.indexOf("zz-b"));
    expect(names).toHaveLength((await counts()).locations);
    const one = await api.getLocation(admin, a.id);
    expect(one.status).toBe(200);
    expect(one.json).toEqual(a);
    expect(list.json.find((l: { id: number }) => l.id === b.id)).toEqual(b);
    expect((await api.getLocation(admin, 999999)).status).toBe(404);
    const bad = await api.getLocation(admin, "abc");
    expect(bad.status).toBe(400);
    expect(bad.json.field).toBe("id");
    await api.deleteLocation(admin, a.id);
    await api.deleteLocation(admin, b.id);
  });

  it("an ordinary user may not list, read, create, change or delete locations", async () => {
    const l = await mkLocation(admin, { allowed_groups: ["admin"] });
    const before = await counts();
    expect((await api.listLocations(alice)).status).toBe(403);
    expect((await api.getLocation(alice, l.id)).status).toBe(403);
    expect((await api.createLocation(alice, locationBody())).status).toBe(403);
    expect((await api.updateLocation(alice, l.id, locationBody({ name: l.name, port: 1 }))).status).toBe(403);
    expect((await api.deleteLocation(alice, l.id)).status).toBe(403);
    expect(await counts()).toEqual(before);
    expect((await locationRow(l.id)).port).toBe(51820);
    await api.deleteLocation(admin, l.id);
  });

  it("PUT /network/{id} changes the settings and keeps the key pair; another location's name → 409", async () => {
    const l = await mkLocation(admin, { name: "Before", allowed_groups: ["admin"] });
    const other = await mkLocation(admin, { name: "Other", address: "10.3.0.1/24", allowed_groups: ["admin"] });
    const rowBefore = await locationRow(l.id);
    const res = await api.updateLocation(
      admin,
      l.id,
      locationBody({
        name: "After",
        address: "10.1.0.1/24",
        endpoint: "203.0.113.7",
        port: 41641,
        allowed_ips: ["0.0.0.0/0"],
        dns: null,
        allowed_groups: [],
        keepalive_interval: 0,
        location_mfa_mode: "external",
        acl_enabled: true,
        acl_default_allow: true,
      }),
    );
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({
      id: l.id,
      name: "After",
      endpoint: "203.0.113.7",
      port: 41641,
      allowed_ips: ["0.0.0.0/0"],
      dns: null,
      allowed_groups: [],
      keepalive_interval: 0,
      location_mfa_mode: "external",
      acl_enabled: true,
      acl_default_allow: true,
      pubkey: l.pubkey,
    });
    expect((await api.getLocation(admin, l.id)).json).toEqual(res.json);
    const rowAfter = await locationRow(l.id);
    expect(rowAfter.prvkey_enc).toBe(rowBefore.prvkey_enc);

    // Keeping its own name is fine; taking another location's is not.
    expect((await api.updateLocation(admin, l.id, locationBody({ name: "After", allowed_groups: ["admin"] }))).status).toBe(200);
    const clash = await api.updateLocation(admin, l.id, locationBody({ name: "Other" }));
    expect(clash.status).toBe(409);
    expect(clash.json.msg).toBe("name is already taken");
    expect((await locationRow(l.id)).name).toBe("After");
    expect((await api.updateLocation(admin, 999999, locationBody())).status).toBe(404);
    await api.deleteLocation(admin, l.id);
    await api.deleteLocation(admin, other.id);
  });

  it("DELETE /network/{id} removes the location with its network devices and addresses; user devices stay", async () => {
    await mkGroup(admin, "del-g", ["alice"]);
    const l = await mkLocation(admin, { address: "10.4.0.1/24", allowed_groups: ["del-g"] });
    const { device } = await mkDevice(admin, "alice");
    const nd = await api.createNetworkDevice(admin, {
      name: uniq("printer"),
      location_id: l.id,
      assigned_ips: ["10.4.0.100"],
      wireguard_pubkey: newKey(),
    });
    expect(nd.status, nd.text).toBe(201);
    expect(await ipsOf(device.id, l.id)).toEqual(["10.4.0.2"]);

    const res = await api.deleteLocation(admin, l.id);
    expect(res.status).toBe(200);
    expect(await locationRow(l.id)).toBeUndefined();
    expect(await query("select 1 from devices where id = $1", [nd.json.device.id])).toHaveLength(0);
    expect(await query("select 1 from devices where id = $1", [device.id])).toHaveLength(1);
    expect(await query("select 1 from device_locations where location_id = $1", [l.id])).toHaveLength(0);
    expect(await query("select 1 from location_allowed_groups where location_id = $1", [l.id])).toHaveLength(0);
    expect((await api.deleteLocation(admin, l.id)).status).toBe(404);
    await api.deleteGroup(admin, "del-g");
  });
});

// ------------------------------------------------------------------------------ validation

describe("location validation: 400 naming the field, nothing written", () => {
  const cases: [string, Record<string, unknown>, string, string?][] = [
    ["overlapping CIDRs", { address: "10.1.0.1/24, 10.1.0.5/16" }, "address", T.overlappingAddresses],
    ["overlapping IPv6 CIDRs", { address: "fd00::1/64, fd00::8000:1/96" }, "address", T.overlappingAddresses],
    ["a prefix above 32", { address: "10.1.0.1/33" }, "address", T.invalidAddressNetmask],
    ["a short dotted quad", { address: "10.1.0/24" }, "address", T.invalidAddressNetmask],
    ["an octet above 255", { address: "10.1.0.256/24" }, "address", T.invalidAddressNetmask],
    ["an IPv6 prefix above 128", { address: "fd00::1/129" }, "address", T.invalidAddressNetmask],
    ["a non-numeric prefix", { address: "10.1.0.1/ab" }, "address", T.invalidAddressNetmask],
    ["words", { address: "my network" }, "address", T.invalidAddressNetmask],
    ["a bad second entry", { address: "10.1.0.1/24, nonsense" }, "address", T.invalidAddressNetmask],
    ["a bare IP without mask", { address: "10.1.0.1" }, "address", T.invalidAddressNetmask],
    ["a /32 location", { address: "10.1.0.1/32" }, "address", T.noRoomForDevices],
    ["a /31 location", { address: "10.1.0.0/31" }, "address", T.noRoomForDevices],
    ["a /128 location", { address: "fd00::1/128" }, "address", T.noRoomForDevices],
    ["the whole IPv4 space", { address: "0.0.0.0/0" }, "address", T.addressSpecialRange],
    ["a host in a /1 that holds multicast", { address: "128.0.0.1/1" }, "address", T.addressSpecialRange],
    ["a loopback network", { address: "127.0.0.1/8" }, "address", T.addressSpecialRange],
    ["a multicast network", { address: "239.1.1.1/24" }, "address", T.addressSpecialRange],
    ["the whole IPv6 space", { address: "::1/0" }, "address", T.addressSpecialRange],
    ["an IPv6 multicast network", { address: "ff02::1/64" }, "address", T.addressSpecialRange],
    ["the network address", { address: "10.1.0.0/24" }, "address", T.addressNotHost],
    ["the broadcast address", { address: "10.1.0.255/24" }, "address", T.addressNotHost],
    ["the IPv6 network address as second entry", { address: "10.1.0.1/24, fd00::/64" }, "address", T.addressNotHost],
    // Numbers are JSON numbers: no coercion of strings, booleans or null.
    ["port as a numeric string", { port: "51820" }, "port", T.invalidNumber],
    ["port true", { port: true }, "port", T.invalidNumber],
    ["port null", { port: null }, "port", T.invalidNumber],
    ["keepalive null", { keepalive_interval: null }, "keepalive_interval", T.invalidNumber],
    ["keepalive as a numeric string", { keepalive_interval: "25" }, "keepalive_interval", T.invalidNumber],
    ["disconnect threshold false", { peer_disconnect_threshold: false }, "peer_disconnect_threshold", T.invalidNumber],
    ["an empty address", { address: "" }, "address", T.required],
    ["an empty address list", { address: [] }, "address", T.required],
    ["port 0", { port: 0 }, "port"],
    ["port 70000", { port: 70000 }, "port", T.maxPort],
    ["port -1", { port: -1 }, "port"],
    ["a fractional port", { port: 5.5 }, "port"],
    ["a word for port", { port: "http" }, "port", T.invalidNumber],
    ["an endpoint with spaces", { endpoint: "not a host" }, "endpoint", T.invalidEndpoint],
    ["an endpoint with a port", { endpoint: "vpn.example.com:51820" }, "endpoint", T.invalidEndpoint],
    ["an endpoint URL", { endpoint: "https://vpn.example.com" }, "endpoint", T.invalidEndpoint],
    ["an endpoint with markup", { endpoint: "<script>" }, "endpoint", T.invalidEndpoint],
    ["an empty endpoint", { endpoint: "" }, "endpoint", T.required],
    ["allowed_ips garbage", { allowed_ips: "0.0.0.0/0, bad ip!" }, "allowed_ips", T.invalidAllowedIps],
    ["allowed_ips with a prefix above 32", { allowed_ips: "10.0.0.0/33" }, "allowed_ips", T.invalidAllowedIps],
    ["allowed_ips with a bad IPv6", { allowed_ips: ["fd00::/64", "fd00:::1/64"] }, "allowed_ips", T.invalidAllowedIps],
    ["dns garbage", { dns: "not a dns!" }, "dns", T.invalidDns],
    ["dns with one bad entry", { dns: "1.1.1.1, ::g::" }, "dns", T.invalidDns],
    ["a number for name", { name: 42 }, "name", T.invalidType],
    ["a missing name", { name: undefined }, "name", T.required],
    // Unions answer zod's generic "Invalid input" (lists it); only the field is checked.
    ["a number for address", { address: 42 }, "address"],
    ["numbers in the address list", { address: [1, 2] }, "address"],
    ["a number for endpoint", { endpoint: 1 }, "endpoint", T.invalidType],
    ["an object for port", { port: {} }, "port", T.invalidNumber],
    ["a string for allowed_groups", { allowed_groups: "admin" }, "allowed_groups", T.invalidType],
    ["a string for acl_enabled", { acl_enabled: "yes" }, "acl_enabled", T.invalidType],
    ["an unknown MFA mode", { location_mfa_mode: "sometimes" }, "location_mfa_mode", T.invalidType],
    ["a number for dns", { dns: 5 }, "dns", T.invalidType],
    ["a word for keepalive", { keepalive_interval: "often" }, "keepalive_interval", T.invalidNumber],
    ["a negative keepalive", { keepalive_interval: -5 }, "keepalive_interval"],
    ["a disconnect threshold below 120", { peer_disconnect_threshold: 5 }, "peer_disconnect_threshold"],
    ["an unknown allowed group", { allowed_groups: ["no-such-group"] }, "allowed_groups", "group not found: no-such-group"],
    ["a 1 MB name", { name: "n".repeat(1_000_000) }, "name", T.tooLong],
    ["a 1 MB endpoint", { endpoint: "a".repeat(1_000_000) }, "endpoint", T.tooLong],
    ["a 1 MB address", { address: "1".repeat(1_000_000) }, "address"],
    ["a 1 MB dns", { dns: "1.1.1.1,".repeat(120_000) }, "dns", T.tooLong],
    ["control characters in the name", { name: "a\u0000b\u0007c" }, "name", T.forbiddenChars],
    ["binary in the address", { address: "\u0000\u00ff\u0001/24" }, "address", T.invalidAddressNetmask],
    ["binary in the endpoint", { endpoint: "\u0000\u0001\u0002" }, "endpoint", T.invalidEndpoint],
  ];

  it.each(cases)("POST with %s", async (_label, over, field, text) => {
    const before = await counts();
    const body = locationBody(over);
    for (const [k, v] of Object.entries(over)) if (v === undefined) delete body[k];
    const res = await api.createLocation(admin, body);
    expect(res.status, res.text.slice(0, 300)).toBe(400);
    expect(res.json.field).toBe(field);
    expect(res.json.msg.startsWith(`${field}: `)).toBe(true);
    if (text) expect(res.json.msg).toContain(text);
    expect(await counts()).toEqual(before);
  });

  // A 1 MB list of 80,000 addresses must be refused by its length (at most 16) before the
  // pairwise overlap check runs: that check is quadratic and adds one issue per overlapping
  // pair (3.2e9 here). Run in a child process with a 64 MB heap, so the failure is an
  // out-of-memory exit after seconds instead of a test worker that hangs and dies.
  it("a 1 MB list of addresses is refused by its length, without a quadratic overlap check", () => {
    const dir = mkdtempSync(join(tmpdir(), "loc-schema-"));
    const script = join(dir, "parse.ts");
    writeFileSync(
      script,
      `import { locationSchema } from ${JSON.stringify(join(ROOT, "lib/locations/schema.ts"))};
const address = "10.1.0.1/24" + ", 10.1.0.1/24".repeat(80_000);
const r = locationSchema.safeParse({ name: "x", address, endpoint: "vpn.example.com", port: 51820 });
console.log(JSON.stringify(r.success ? { ok: true } : { ok: false, issues: r.error.issues.length, first: r.error.issues[0] }));
`,
    );
    try {
      const out = spawnSync(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), script], {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, NODE_OPTIONS: "--max-old-space-size=64" },
        timeout: 180_000,
      });
      const oom = /heap out of memory/.test(out.stderr) ? "ran out of memory (64 MB heap) validating the address list; " : "";
      expect(out.status, `${oom}child exited ${out.status} ${out.signal ?? ""}: ${out.stderr.split("\n").slice(0, 2).join(" ")}`).toBe(0);
      const r = JSON.parse(out.stdout.trim().split("\n").pop()!);
      expect(r.ok).toBe(false);
      expect(r.first).toMatchObject({ path: ["address"], message: "tooLong" });
      expect(r.issues).toBeLessThan(10);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 200_000);

  it("the allowed_ips message is the catalogue text", async () => {
    expect(T.invalidAllowedIps).toBe("only valid IP or domain allowed for allowedIps");
    const res = await api.createLocation(admin, locationBody({ allowed_ips: "what?" }));
    expect(res.json.msg).toBe(`allowed_ips: ${T.invalidAllowedIps}`);
  });

  it("a body over 1 MiB → 400 and nothing written", async () => {
    const before = await counts();
    const res = await api.createLocation(admin, locationBody({ dns: "x".repeat(1_100_000) }));
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/larger than/);
    expect(await counts()).toEqual(before);
  });

  it.each([
    ["binary garbage", "\u0000\u0001\u0002\u00ff\ufffd garbage"],
    ["truncated JSON", '{"name": "x", "address": '],
    ["a JSON array", "[1,2,3]"],
    ["a JSON string", '"hello"'],
  ])("%s as the body → 400 and nothing written", async (_label, raw) => {
    const before = await counts();
    const res = await api.createLocation(admin, raw);
    expect(res.status).toBe(400);
    expect(typeof res.json.msg).toBe("string");
    expect(await counts()).toEqual(before);
  });

  // Dotted quads that are not IPv4 addresses are not host names either: the rendered client
  // config would say `Endpoint = 300.1.1.1:51820`, which wg-quick and our own parser refuse.
  it.each([
    ["endpoint", { endpoint: "300.1.1.1" }, "endpoint"],
    ["endpoint (leading zeros)", { endpoint: "010.0.0.1" }, "endpoint"],
    ["dns", { dns: "1.1.1.999" }, "dns"],
    ["allowed_ips", { allowed_ips: "10.0.0.256" }, "allowed_ips"],
  ])("a malformed dotted quad in %s → 400", async (_label, over, field) => {
    const before = await counts();
    const res = await api.createLocation(admin, locationBody({ ...over, allowed_groups: ["admin"] }));
    expect(res.status, res.text).toBe(400);
    expect(res.json.field).toBe(field);
    expect(await counts()).toEqual(before);
    if (res.status === 201) await api.deleteLocation(admin, res.json.id);
  });

  it("PUT validates the same way and changes nothing", async () => {
    const l = await mkLocation(admin, { address: "10.5.0.1/24", allowed_groups: ["admin"] });
    const row = await locationRow(l.id);
    for (const [over, field] of [
      [{ address: "10.5.0.1/24, 10.5.0.9/16" }, "address"],
      [{ address: "10.5.0.1/32" }, "address"],
      [{ port: 70000 }, "port"],
      [{ allowed_groups: ["ghost"] }, "allowed_groups"],
      [{ endpoint: "" }, "endpoint"],
    ] as const) {
      const before = await counts();
      const res = await api.updateLocation(admin, l.id, locationBody({ name: l.name, allowed_groups: ["admin"], ...over }));
      expect(res.status, res.text).toBe(400);
      expect(res.json.field).toBe(field);
      expect(await locationRow(l.id)).toEqual(row);
      expect(await counts()).toEqual(before);
    }
    await api.deleteLocation(admin, l.id);
  });
});

// ------------------------------------------------------------------------------ IP assignment

describe("IP assignment", () => {
  it("dual stack: the first device gets the first host of each CIDR after the gateway (10.1.0.2 + fd00::2), then the next", async () => {
    await createUser({ username: "ds-user" });
    const dsUser = await signIn("ds-user");
    await mkGroup(admin, "ds-g", ["ds-user"]);
    const l = await mkLocation(admin, { address: "10.1.0.1/24, fd00::1/64", allowed_groups: ["ds-g"] });
    const a = await mkDevice(admin, "ds-user");
    const b = await mkDevice(dsUser, "ds-user");
    const cfgA = a.configs.find((c) => c.network_id === l.id);
    expect(cfgA.address).toEqual(["10.1.0.2", "fd00::2"]);
    expect(b.configs.find((c) => c.network_id === l.id).address).toEqual(["10.1.0.3", "fd00::3"]);
    expect(await ipsOf(a.device.id, l.id)).toEqual(["10.1.0.2", "fd00::2"]);
    expect(await ipsOf(b.device.id, l.id)).toEqual(["10.1.0.3", "fd00::3"]);
    await expectLocationInvariants(l.id);
    await api.deleteLocation(admin, l.id);
  });

  it("the gateway address is skipped when it is not .1: 10.2.0.5/24 gives .1, .2, .3, .4, .6", async () => {
    await createUser({ username: "gw-user", groups: ["gw-g"] });
    const l = await mkLocation(admin, { address: "10.2.0.5/24", allowed_groups: ["gw-g"] });
    const got: string[] = [];
    for (let i = 0; i < 5; i++) {
      const d = await mkDevice(admin, "gw-user");
      got.push(d.configs.find((c) => c.network_id === l.id).address[0]);
    }
    expect(got).toEqual(["10.2.0.1", "10.2.0.2", "10.2.0.3", "10.2.0.4", "10.2.0.6"]);
    await expectLocationInvariants(l.id);
    await api.deleteLocation(admin, l.id);
  });

  it("a location created after the devices assigns them in device order, skipping network/gateway/broadcast", async () => {
    await createUser({ username: "late-user", groups: ["late-g"] });
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await mkDevice(admin, "late-user")).device.id);
    // 10.6.0.1/29: .0 is the network, .1 the gateway, so hosts start at .2; same for IPv6.
    const l = await mkLocation(admin, { address: "10.6.0.1/29, fd06::1/125", allowed_groups: ["late-g"] });
    expect(await ipsOf(ids[0], l.id)).toEqual(["10.6.0.2", "fd06::2"]);
    expect(await ipsOf(ids[1], l.id)).toEqual(["10.6.0.3", "fd06::3"]);
    expect(await ipsOf(ids[2], l.id)).toEqual(["10.6.0.4", "fd06::4"]);
    await expectLocationInvariants(l.id);
    await api.deleteLocation(admin, l.id);
  });

  it("the IPv4 broadcast address is never handed out, the last IPv6 address is", async () => {
    await createUser({ username: "bc-user", groups: ["bc-g"] });
    // /30: .0 network, .1 gateway, .3 broadcast → one device (.2). IPv6 /126: ::0 net, ::1 gw → ::2, ::3.
    const l = await mkLocation(admin, { address: "10.7.0.1/30, fd07::1/126", allowed_groups: ["bc-g"] });
    const d = await mkDevice(admin, "bc-user");
    expect(d.configs.find((c) => c.network_id === l.id).address).toEqual(["10.7.0.2", "fd07::2"]);
    let before = await counts();
    let full = await api.createDevice(admin, "bc-user", { name: uniq("dev"), wireguard_pubkey: newKey() });
    expect(full.status, full.text).toBe(400);
    expect(full.json.msg).toMatch(/no free address/);
    expect(await counts()).toEqual(before);

    const res = await api.updateLocation(admin, l.id, locationBody({ name: l.name, address: "10.7.0.1/29, fd07::1/126", allowed_groups: ["bc-g"] }));
    expect(res.status, res.text).toBe(200);
    const e = await mkDevice(admin, "bc-user");
    expect(e.configs.find((c) => c.network_id === l.id).address).toEqual(["10.7.0.3", "fd07::3"]);
    before = await counts();
    full = await api.createDevice(admin, "bc-user", { name: uniq("dev"), wireguard_pubkey: newKey() });
    expect(full.status, full.text).toBe(400);
    expect(await counts()).toEqual(before);
    await api.deleteLocation(admin, l.id);
  });

  it("allowed groups: outsiders get no address and no config; joining the group assigns one, leaving frees it", async () => {
    await createUser({ username: "insider", groups: ["ag-g"] });
    await createUser({ username: "outsider" });
    const l = await mkLocation(admin, { address: "10.8.0.1/24", allowed_groups: ["ag-g"] });
    expect(l.allowed_groups).toEqual(["ag-g"]);
    const inside = await mkDevice(admin, "insider");
    const out = await mkDevice(admin, "outsider");
    expect(inside.configs.map((c) => c.network_id)).toContain(l.id);
    expect(out.configs.map((c) => c.network_id)).not.toContain(l.id);
    expect(await ipsOf(out.device.id, l.id)).toBeNull();
    expect((await api.deviceConfig(admin, l.id, out.device.id)).status).toBe(404);

    const join = await api.addMember(admin, "ag-g", "outsider");
    expect(join.status, join.text).toBe(200);
    expect(await ipsOf(out.device.id, l.id)).toEqual(["10.8.0.3"]);
    const cfg = await api.deviceConfig(admin, l.id, out.device.id);
    expect(cfg.status).toBe(200);
    expect(cfg.text).toContain("Address = 10.8.0.3");

    const leave = await api.removeMember(admin, "ag-g", "outsider");
    expect(leave.status, leave.text).toBe(200);
    expect(await ipsOf(out.device.id, l.id)).toBeNull();
    expect(await ipsOf(inside.device.id, l.id)).toEqual(["10.8.0.2"]);
    // The freed address is handed out again.
    const next = await mkDevice(admin, "insider");
    expect(next.configs.find((c) => c.network_id === l.id).address).toEqual(["10.8.0.3"]);
    await expectLocationInvariants(l.id);
    await api.deleteLocation(admin, l.id);
  });

  it("renaming an allowed group keeps the restriction (allowed_groups shows the new name)", async () => {
    await createUser({ username: "ren-user", groups: ["ren-g"] });
    const l = await mkLocation(admin, { address: "10.9.0.1/24", allowed_groups: ["ren-g"] });
    const res = await api.updateGroup(admin, "ren-g", { name: "ren-g2" });
    expect(res.status, res.text).toBe(200);
    expect((await api.getLocation(admin, l.id)).json.allowed_groups).toEqual(["ren-g2"]);
    const out = await mkDevice(admin, "alice");
    expect(await ipsOf(out.device.id, l.id)).toBeNull();
    await api.deleteLocation(admin, l.id);
  });

  it("deleting the only allowed group opens the location to everybody", async () => {
    await createUser({ username: "og-member", groups: ["og-g"] });
    await createUser({ username: "og-other" });
    const l = await mkLocation(admin, { address: "10.10.0.1/16", allowed_groups: ["og-g"] });
    const other = await mkDevice(admin, "og-other");
    expect(await ipsOf(other.device.id, l.id)).toBeNull();
    const res = await api.deleteGroup(admin, "og-g");
    expect(res.status, res.text).toBe(200);
    expect((await api.getLocation(admin, l.id)).json.allowed_groups).toEqual([]);
    expect(await ipsOf(other.device.id, l.id)).not.toBeNull();
    // Every user device of every user now has an address there.
    const [{ missing }] = await query<{ missing: number }>(
      `select count(*)::int missing from devices d where d.device_type = 'user'
       and not exists (select 1 from device_locations dl where dl.device_id = d.id and dl.location_id = $1)`,
      [l.id],
    );
    expect(missing).toBe(0);
    await expectLocationInvariants(l.id);
    await api.deleteLocation(admin, l.id);
  });

  it("removing one of two allowed groups keeps the location closed to the other group's outsiders", async () => {
    await createUser({ username: "two-a", groups: ["two-ga"] });
    await createUser({ username: "two-b", groups: ["two-gb"] });
    await createUser({ username: "two-c" });
    const l = await mkLocation(admin, { address: "10.11.0.1/24", allowed_groups: ["two-ga", "two-gb"] });
    const a = await mkDevice(admin, "two-a");
    const b = await mkDevice(admin, "two-b");
    const c = await mkDevice(admin, "two-c");
    expect(await ipsOf(c.device.id, l.id)).toBeNull();
    expect((await api.deleteGroup(admin, "two-gb")).status).toBe(200);
    expect(await ipsOf(a.device.id, l.id)).toEqual(["10.11.0.2"]);
    expect(await ipsOf(b.device.id, l.id)).toBeNull();
    expect(await ipsOf(c.device.id, l.id)).toBeNull();
    await api.deleteLocation(admin, l.id);
  });

  it("changing allowed_groups on the location reconciles: newly allowed devices get addresses, others lose them", async () => {
    await createUser({ username: "sw-a", groups: ["sw-ga"] });
    await createUser({ username: "sw-b", groups: ["sw-gb"] });
    const l = await mkLocation(admin, { address: "10.12.0.1/24", allowed_groups: ["sw-ga"] });
    const a = await mkDevice(admin, "sw-a");
    const b = await mkDevice(admin, "sw-b");
    const res = await api.updateLocation(admin, l.id, locationBody({ name: l.name, address: "10.12.0.1/24", allowed_groups: ["sw-gb"] }));
    expect(res.status, res.text).toBe(200);
    expect(res.json.allowed_groups).toEqual(["sw-gb"]);
    expect(await ipsOf(a.device.id, l.id)).toBeNull();
    expect(await ipsOf(b.device.id, l.id)).toEqual(["10.12.0.2"]);
    await api.deleteLocation(admin, l.id);
  });

  describe("changing a location's addresses re-assigns only what no longer fits", () => {
    async function setup(group: string, address: string, n: number) {
      await createUser({ username: `${group}-u`, groups: [group] });
      const l = await mkLocation(admin, { address, allowed_groups: [group] });
      const ids: number[] = [];
      for (let i = 0; i < n; i++) ids.push((await mkDevice(admin, `${group}-u`)).device.id);
      return { l, ids };
    }
    const put = (l: { id: number; name: string }, group: string, address: string) =>
      api.updateLocation(admin, l.id, locationBody({ name: l.name, address, allowed_groups: [group] }));

    it("/24 → /16 keeps every address", async () => {
      const { l, ids } = await setup("ch1", "10.20.0.1/24", 4);
      const before = await addressesIn(l.id);
      const res = await put(l, "ch1", "10.20.0.1/16");
      expect(res.status, res.text).toBe(200);
      expect(res.json.address).toEqual(["10.20.0.1/16"]);
      expect(await addressesIn(l.id)).toEqual(before);
      expect([...before.values()].map((v) => v[0])).toEqual(["10.20.0.2", "10.20.0.3", "10.20.0.4", "10.20.0.5"]);
      expect(ids).toHaveLength(4);
      await api.deleteLocation(admin, l.id);
    });

    it("10.21.0.1/24 → 10.29.0.1/24 moves every device into the new network", async () => {
      const { l, ids } = await setup("ch2", "10.21.0.1/24", 3);
      expect(await ipsOf(ids[0], l.id)).toEqual(["10.21.0.2"]);
      const res = await put(l, "ch2", "10.29.0.1/24");
      expect(res.status, res.text).toBe(200);
      const now = await addressesIn(l.id);
      expect(ids.map((id) => now.get(id))).toEqual([["10.29.0.2"], ["10.29.0.3"], ["10.29.0.4"]]);
      await expectLocationInvariants(l.id);
      await api.deleteLocation(admin, l.id);
    });

    it("narrowing keeps the addresses inside and moves the others (network devices too)", async () => {
      const { l, ids } = await setup("ch3", "10.22.0.1/24", 3); // .2 .3 .4
      const nd = await api.createNetworkDevice(admin, {
        name: uniq("nd"),
        location_id: l.id,
        assigned_ips: "10.22.0.200",
        wireguard_pubkey: newKey(),
      });
      expect(nd.status, nd.text).toBe(201);
      const res = await put(l, "ch3", "10.22.0.1/25");
      expect(res.status, res.text).toBe(200);
      const now = await addressesIn(l.id);
      expect(ids.map((id) => now.get(id))).toEqual([["10.22.0.2"], ["10.22.0.3"], ["10.22.0.4"]]);
      expect(now.get(nd.json.device.id)).toEqual(["10.22.0.5"]);
      await expectLocationInvariants(l.id);
      await api.deleteLocation(admin, l.id);
    });

    it("moving the gateway onto a device's address moves only that device", async () => {
      const { l, ids } = await setup("ch4", "10.23.0.1/24", 3); // .2 .3 .4
      const res = await put(l, "ch4", "10.23.0.3/24");
      expect(res.status, res.text).toBe(200);
      const now = await addressesIn(l.id);
      expect(now.get(ids[0])).toEqual(["10.23.0.2"]);
      expect(now.get(ids[2])).toEqual(["10.23.0.4"]);
      expect(now.get(ids[1])).toEqual(["10.23.0.1"]);
      await expectLocationInvariants(l.id);
      await api.deleteLocation(admin, l.id);
    });

    it("adding an IPv6 CIDR keeps the IPv4 addresses and adds IPv6 ones; dropping it again keeps IPv4", async () => {
      const { l, ids } = await setup("ch5", "10.24.0.1/24", 2);
      let res = await put(l, "ch5", "10.24.0.1/24, fd24::1/64");
      expect(res.status, res.text).toBe(200);
      let now = await addressesIn(l.id);
      expect(ids.map((id) => now.get(id))).toEqual([
        ["10.24.0.2", "fd24::2"],
        ["10.24.0.3", "fd24::3"],
      ]);
      res = await put(l, "ch5", "fd24::1/64, 10.24.0.1/24");
      expect(res.status, res.text).toBe(200);
      now = await addressesIn(l.id);
      expect(ids.map((id) => now.get(id))).toEqual([
        ["fd24::2", "10.24.0.2"],
        ["fd24::3", "10.24.0.3"],
      ]);
      res = await put(l, "ch5", "10.24.0.1/24");
      expect(res.status, res.text).toBe(200);
      now = await addressesIn(l.id);
      expect(ids.map((id) => now.get(id))).toEqual([["10.24.0.2"], ["10.24.0.3"]]);
      await expectLocationInvariants(l.id);
      await api.deleteLocation(admin, l.id);
    });

    it("a location too small for its devices is refused with how many fit, and nothing changes", async () => {
      const { l } = await setup("ch6", "10.25.0.1/24", 10);
      const rowBefore = await locationRow(l.id);
      const ipsBefore = await addressesIn(l.id);
      const before = await counts();
      const res = await put(l, "ch6", "10.25.0.1/29");
      expect(res.status, res.text).toBe(400);
      expect(res.json.field).toBe("address");
      expect(res.json.msg).toContain("10 devices");
      expect(res.json.msg).toContain("5 fit");
      expect(await locationRow(l.id)).toEqual(rowBefore);
      expect(await addressesIn(l.id)).toEqual(ipsBefore);
      expect(await counts()).toEqual(before);
      await api.deleteLocation(admin, l.id);
    });

    it("creating a location too small for the devices that may use it is refused, nothing written", async () => {
      await createUser({ username: "small-u", groups: ["small-g"] });
      for (let i = 0; i < 10; i++) await mkDevice(admin, "small-u");
      const before = await counts();
      const res = await api.createLocation(admin, locationBody({ address: "10.26.0.1/29", allowed_groups: ["small-g"] }));
      expect(res.status, res.text).toBe(400);
      expect(res.json.msg).toMatch(/10 devices.*5 fit/);
      expect(await counts()).toEqual(before);
    });
  });

  // ---------------------------------------------------------------------------- property

  it("property: random create / delete / re-address sequences keep every address inside, assignable and unique", async () => {
    const ADDRESSES = [
      "10.77.0.1/28",
      "10.77.0.14/28",
      "10.77.0.2/29",
      "10.78.0.1/29",
      "10.77.0.1/27, fd77::1/125",
      "fd77::5/124",
      "10.77.0.9/28, fd77::1/124",
      "10.79.1.254/23", // the gateway is the last host address
    ];
    /** Independent oracle: hosts of a CIDR minus network, gateway and (IPv4) broadcast. */
    const fits = (address: string) =>
      Math.min(
        ...address.split(",").map((a) => {
          const [ip, prefix] = a.trim().split("/");
          const v6 = ip.includes(":");
          const size = 2n ** BigInt((v6 ? 128 : 32) - Number(prefix));
          const value = v6
            ? BigInt(`0x${ip.split("::")[1] || "0"}`) // fd77::x only
            : ip.split(".").reduce((acc, o) => acc * 256n + BigInt(o), 0n);
          const reserved = new Set([0n, value % size, ...(v6 ? [] : [size - 1n])]);
          return Number(size) - reserved.size;
        }),
      );
    expect(ADDRESSES.map(fits)).toEqual([13, 13, 5, 5, 6, 14, 13, 509]);
    const op = fc.oneof(
      { arbitrary: fc.constant({ kind: "create" as const }), weight: 5 },
      { arbitrary: fc.nat({ max: 40 }).map((i) => ({ kind: "delete" as const, i })), weight: 2 },
      { arbitrary: fc.constantFrom(...ADDRESSES).map((address) => ({ kind: "address" as const, address })), weight: 2 },
    );

    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ADDRESSES), fc.array(op, { minLength: 1, maxLength: 14 }), async (start, ops) => {
        const group = uniq("pg");
        const user = uniq("pu");
        await createUser({ username: user, groups: [group] });
        const l = await mkLocation(admin, { address: start, allowed_groups: [group] });
        let address = start;
        const devices: number[] = [];
        try {
          for (const o of ops) {
            if (o.kind === "create") {
              const res = await api.createDevice(admin, user, { name: uniq("pd"), wireguard_pubkey: newKey() });
              if (devices.length < fits(address)) {
                expect(res.status, res.text).toBe(201);
                devices.push(res.json.device.id);
              } else {
                expect(res.status, res.text).toBe(400);
              }
            } else if (o.kind === "delete") {
              if (!devices.length) continue;
              const [id] = devices.splice(o.i % devices.length, 1);
              expect((await api.deleteDevice(admin, id)).status).toBe(200);
            } else {
              const before = await addressesIn(l.id);
              const res = await api.updateLocation(admin, l.id, locationBody({ name: l.name, address: o.address, allowed_groups: [group] }));
              if (devices.length <= fits(o.address)) {
                expect(res.status, res.text).toBe(200);
                address = o.address;
                // What still fits is kept.
                const after = await addressesIn(l.id);
                const [{ address: stored }] = await query<{ address: string[] }>("select address from locations where id = $1", [l.id]);
                for (const [id, ips] of before) {
                  for (const ip of ips) {
                    const idx = stored.findIndex((c) => ipFits(c, ip));
                    if (idx >= 0) expect(after.get(id)?.[idx], `device ${id} keeps ${ip} after ${address}`).toBe(ip);
                  }
                }
              } else {
                expect(res.status, res.text).toBe(400);
                expect(res.json.msg).toContain(`${fits(o.address)} fit`);
                expect(await addressesIn(l.id)).toEqual(before);
              }
            }
            await expectLocationInvariants(l.id);
            const now = await addressesIn(l.id);
            expect([...now.keys()].sort((a, b) => a - b)).toEqual([...devices].sort((a, b) => a - b));
          }
        } finally {
          await api.deleteLocation(admin, l.id);
        }
      }),
      { numRuns: 25 },
    );
  });
});

/** Whether `ip` is a device address of the location CIDR `cidr` (inside, not reserved). */
function ipFits(cidr: string, ip: string): boolean {
  const c = parseCidr(cidr);
  const v = parseIp(ip);
  return !!c && !!v && c.version === v.version && isAssignable(c, v.value);
}

// ------------------------------------------------------------------------------ concurrency

describe("concurrent changes", () => {
  /**
   * One round: a location restricted to a group; four users who already have a device join
   * the group (each join reconciles every location) while four devices are added for a member
   * (each takes the first free address). Answers every request gave, and the addresses used twice.
   */
  async function round(n: number) {
    const group = uniq("race-g");
    const owner = uniq("race-owner");
    await createUser({ username: owner, groups: [group] });
    const joiners: string[] = [];
    for (let i = 0; i < 4; i++) {
      const u = uniq("race-joiner");
      await createUser({ username: u });
      await mkDevice(admin, u);
      joiners.push(u);
    }
    const l = await mkLocation(admin, { address: `10.${120 + n}.0.1/24`, allowed_groups: [group] });
    const answers = await Promise.all([
      ...joiners.map((u) => api.addMember(admin, group, u)),
      ...joiners.map(() => api.createDevice(admin, owner, { name: uniq("race-dev"), wireguard_pubkey: newKey() })),
    ]);
    const dups = await query<{ ip: string; n: number }>(
      "select ip, count(*)::int n from device_locations, unnest(ips) ip where location_id = $1 group by ip having count(*) > 1",
      [l.id],
    );
    const [{ missing }] = await query<{ missing: number }>(
      `select count(*)::int missing from devices d join users u on u.id = d.user_id
       where u.username = any($1) and not exists (select 1 from device_locations dl where dl.device_id = d.id and dl.location_id = $2)`,
      [[owner, ...joiners], l.id],
    );
    await api.deleteLocation(admin, l.id);
    const what = (i: number) => (i < joiners.length ? `POST /group/${group} {${joiners[i]}}` : `POST /device/${owner}`);
    return { failed: answers.flatMap((a, i) => (a.status >= 300 ? [`${what(i)} → ${a.status} ${a.text}`] : [])), dups, missing };
  }

  it("devices added while group members change never share an address", async () => {
    for (let n = 0; n < 3; n++) {
      const { dups } = await round(n);
      expect(dups, `round ${n}: addresses handed out twice`).toEqual([]);
    }
  });

  it("concurrent group membership changes and device additions all succeed, and every member's device ends up with an address", async () => {
    for (let n = 3; n < 6; n++) {
      const { failed, missing } = await round(n);
      expect(failed, `round ${n}`).toEqual([]);
      expect(missing, `round ${n}: members' devices without an address`).toBe(0);
    }
  });
});

describe("groups ↔ locations", () => {
  it("a group lists the locations it is allowed to use", async () => {
    const { getGroupInfo, listGroupInfo } = await import("@/lib/groups/service");
    const { createLocation } = await import("@/lib/locations/service");
    const { locationSchema } = await import("@/lib/locations/schema");
    await query("insert into groups (name, is_admin) values ('vpn-eng', false) on conflict do nothing");
    await createLocation(
      { userId: null, username: "t", ip: null },
      locationSchema.parse({ name: "Zeta office", address: "10.77.0.1/24", endpoint: "vpn.example.com", port: 51820, allowed_groups: ["vpn-eng"] }),
    );
    expect((await getGroupInfo("vpn-eng")).vpn_locations).toEqual(["Zeta office"]);
    expect((await listGroupInfo()).find((g) => g.name === "vpn-eng")?.vpn_locations).toEqual(["Zeta office"]);
  });
});
