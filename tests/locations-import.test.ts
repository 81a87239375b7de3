/**
 * Location import (POST /network/import) and peer mapping (POST /network/{id}/devices) through
 * the real route handlers on a real database, with real wg-quick files and real key pairs.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { decryptSecret } from "@/lib/crypto";
import { generateKeyPair, generatePresharedKey, publicKeyFromPrivate } from "@/lib/wireguard/keys";
import { createUser, query, signIn, type Jar } from "./helpers";
import { api, counts, expectLocationInvariants, ipsOf, locationBody, mkDevice, uniq } from "./wireguard-fixtures";

let admin: Jar;
let alice: Jar;
let aliceId: number;
let bobId: number;

beforeAll(async () => {
  await createUser({ username: "root", isAdmin: true });
  aliceId = (await createUser({ username: "alice" })).id;
  bobId = (await createUser({ username: "bob" })).id;
  admin = await signIn("root");
  alice = await signIn("alice");
});

/** A wg-quick server file as an admin would have it on an existing WireGuard host. */
function serverFile(o: { octet: number; peers: { pub: string; allowed: string; psk?: string }[]; extra?: string }) {
  const server = generateKeyPair();
  const text = [
    "# managed by hand until now",
    "[Interface]",
    `PrivateKey = ${server.privateKey}`,
    `Address = 10.${o.octet}.0.1/24, fd${o.octet}::1/64`,
    "ListenPort = 51830",
    `DNS = 10.${o.octet}.0.1, corp.example`,
    "PostUp = iptables -A FORWARD -i %i -j ACCEPT",
    "SaveConfig = false",
    o.extra ?? "",
    ...o.peers.flatMap((p, i) => [
      "",
      `# peer ${i + 1}`,
      "[Peer]",
      `PublicKey = ${p.pub}`,
      ...(p.psk ? [`PresharedKey = ${p.psk}`] : []),
      `AllowedIPs = ${p.allowed}`,
      "PersistentKeepalive = 25",
    ]),
    "",
  ].join("\r\n");
  return { text, server };
}

const importBody = (config: string, over: Record<string, unknown> = {}) => ({
  name: uniq("imported"),
  endpoint: "wg.example.com",
  config,
  allowed_groups: [],
  ...over,
});

describe("POST /network/import", () => {
  it("201 {network, devices}: the location from [Interface], its key from the file's private key, the peers with their IPs", async () => {
    const peers = [
      { pub: generateKeyPair().publicKey, allowed: "10.50.0.2/32, fd50::2/128", psk: generatePresharedKey() },
      { pub: generateKeyPair().publicKey, allowed: "10.50.0.7/32, 192.168.7.0/24" },
      { pub: generateKeyPair().publicKey, allowed: "10.50.0.9" },
    ];
    const { text, server } = serverFile({ octet: 50, peers });
    const before = await counts();
    const res = await api.importLocation(admin, importBody(text, { name: "Legacy" }));
    expect(res.status, res.text).toBe(201);
    expect(res.json.network).toMatchObject({
      id: expect.any(Number),
      name: "Legacy",
      address: ["10.50.0.1/24", "fd50::1/64"],
      port: 51830,
      endpoint: "wg.example.com",
      dns: "10.50.0.1,corp.example",
      allowed_groups: [],
      pubkey: publicKeyFromPrivate(server.privateKey),
    });
    expect(res.json.devices).toEqual([
      { name: "imported-1", wireguard_pubkey: peers[0].pub, wireguard_ips: ["10.50.0.2", "fd50::2"], user_id: null },
      { name: "imported-2", wireguard_pubkey: peers[1].pub, wireguard_ips: ["10.50.0.7"], user_id: null },
      { name: "imported-3", wireguard_pubkey: peers[2].pub, wireguard_ips: ["10.50.0.9"], user_id: null },
    ]);
    expect(res.text).not.toContain(server.privateKey);
    expect(res.text).not.toContain(peers[0].psk!);
    const [row] = await query<{ prvkey_enc: string; pubkey: string }>("select prvkey_enc, pubkey from locations where id = $1", [res.json.network.id]);
    expect(row.prvkey_enc.startsWith("v1:")).toBe(true);
    expect(decryptSecret(row.prvkey_enc)).toBe(server.privateKey);
    expect(row.pubkey).toBe(server.publicKey);
    // Only the location so far: the peers become devices when mapped.
    expect(await counts()).toMatchObject({ locations: before.locations + 1, devices: before.devices });
    await api.deleteLocation(admin, res.json.network.id);
  });

  it.each([
    ["a key without value", "[Interface]\nPrivateKey = abc\nAddress = 10.1.0.1/24\n", 2],
    ["an unknown section", "[Interface]\nAddress = 10.1.0.1/24\n[Wireguard]\n", 3],
    ["a line without =", `[Interface]\nPrivateKey = ${generateKeyPair().privateKey}\nAddress 10.1.0.1/24\n`, 3],
    ["a bad peer address", `[Interface]\nPrivateKey = ${generateKeyPair().privateKey}\nAddress = 10.1.0.1/24\n\n[Peer]\nPublicKey = ${generateKeyPair().publicKey}\nAllowedIPs = 10.1.0.300/32\n`, 7],
    ["a key outside a section", "PrivateKey = x\n", 1],
    ["binary data", `[Interface]\nAddress = 10.1.0.1/24\n\u0000\u0001\u0002\u00ff\n`, 3],
  ])("garbage (%s) → 400 naming the line, nothing written", async (_label, config, line) => {
    const before = await counts();
    const res = await api.importLocation(admin, importBody(config));
    expect(res.status, res.text).toBe(400);
    expect(res.json.field).toBe("config");
    expect(res.json.msg).toContain(`line ${line}`);
    expect(res.json.msg.match(/line \d+/g), "the line number is given once").toHaveLength(1);
    expect(await counts()).toEqual(before);
  });

  it.each([
    ["no [Interface]", "# nothing here\n"],
    ["no PrivateKey", "[Interface]\nAddress = 10.1.0.1/24\n"],
    ["a bare Address without netmask", `[Interface]\nPrivateKey = ${generateKeyPair().privateKey}\nAddress = 10.1.0.1\n`],
    ["no Address", `[Interface]\nPrivateKey = ${generateKeyPair().privateKey}\n`],
  ])("an unusable file (%s) → 400 on config, nothing written", async (_label, config) => {
    const before = await counts();
    const res = await api.importLocation(admin, importBody(config));
    expect(res.status, res.text).toBe(400);
    expect(res.json.field).toBe("config");
    expect(await counts()).toEqual(before);
  });

  it("a 1 MB file → 400; a file just over 512 KiB → 400; binary bodies → 400; nothing written", async () => {
    const before = await counts();
    const { text } = serverFile({ octet: 51, peers: [] });
    const big = await api.importLocation(admin, importBody(text + `# ${"x".repeat(1_000_000)}\n`));
    expect(big.status).toBe(400);
    const over = await api.importLocation(admin, importBody(text + `# ${"x".repeat(530_000)}\n`));
    expect(over.status).toBe(400);
    expect(over.json.field).toBe("config");
    const raw = await api.importLocation(admin, "\u0000\u0001\u00ff\ufffd[Interface]");
    expect(raw.status).toBe(400);
    const bin = await api.importLocation(admin, importBody(Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 256)).toString("latin1")));
    expect(bin.status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it("name taken → 409, bad name/endpoint → 400, unknown group → 400, non-admin → 403; nothing written", async () => {
    const l = await api.createLocation(admin, locationBody({ name: "Existing", allowed_groups: ["admin"] }));
    expect(l.status).toBe(201);
    const { text } = serverFile({ octet: 52, peers: [] });
    const before = await counts();
    const taken = await api.importLocation(admin, importBody(text, { name: "Existing" }));
    expect(taken.status).toBe(409);
    for (const [over, field] of [
      [{ name: "" }, "name"],
      [{ endpoint: "not a host" }, "endpoint"],
      [{ allowed_groups: ["ghosts"] }, "allowed_groups"],
      [{ config: 5 }, "config"],
    ] as const) {
      const res = await api.importLocation(admin, importBody(text, over));
      expect(res.status, res.text).toBe(400);
      expect(res.json.field).toBe(field);
    }
    expect((await api.importLocation(alice, importBody(text))).status).toBe(403);
    expect(await counts()).toEqual(before);
    await api.deleteLocation(admin, l.json.id);
  });

  // An imported location must be a location POST /network would accept: a /32 leaves no
  // address for devices (every later device creation fails), overlapping CIDRs break
  // assignment, and ListenPort = 0 is no port a client can reach.
  it.each([
    ["a /32 Address", "Address = 10.53.0.1/32"],
    ["overlapping Addresses", "Address = 10.54.0.1/24, 10.54.0.9/16"],
    ["ListenPort = 0", "Address = 10.55.0.1/24\nListenPort = 0"],
  ])("an imported file with %s is refused like POST /network would (400)", async (_label, lines) => {
    await createUser({ username: uniq("iso"), groups: ["import-empty-g"] }).catch(() => undefined);
    const config = `[Interface]\nPrivateKey = ${generateKeyPair().privateKey}\n${lines}\n`;
    const before = await counts();
    const res = await api.importLocation(admin, importBody(config, { allowed_groups: ["import-empty-g"] }));
    try {
      expect(res.status, res.text).toBe(400);
      expect(await counts()).toEqual(before);
    } finally {
      if (res.status === 201) await api.deleteLocation(admin, res.json.network.id);
    }
  });
});

// ------------------------------------------------------------------------------ mapping

describe("POST /network/import: peer keys", () => {
  it("a peer with the all-zero key → 400 naming the peer, nothing written", async () => {
    const { text } = serverFile({
      octet: 63,
      peers: [
        { pub: generateKeyPair().publicKey, allowed: "10.63.0.10/32" },
        { pub: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", allowed: "10.63.0.20/32" },
      ],
    });
    const before = await counts();
    const res = await api.importLocation(admin, importBody(text));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ msg: "config: [Peer] 2 has an invalid PublicKey", field: "config" });
    expect(await counts()).toEqual(before);
  });

  it("an [Interface] Address that is the network address → 400, nothing written", async () => {
    const { text } = serverFile({ octet: 64, peers: [] });
    const before = await counts();
    const res = await api.importLocation(admin, importBody(text.replace("Address = 10.64.0.1/24", "Address = 10.64.0.0/24")));
    expect(res.status).toBe(400);
    expect(res.json.field).toBe("config");
    expect(res.json.msg).toMatch(/network or broadcast address/);
    expect(await counts()).toEqual(before);
  });
});

describe("POST /network/{id}/devices", () => {
  async function imported(octet: number, n: number, over: Record<string, unknown> = {}) {
    const peers = Array.from({ length: n }, (_, i) => ({ pub: generateKeyPair().publicKey, allowed: `10.${octet}.0.${10 + i * 10}/32, fd${octet}::${10 + i * 10}/128` }));
    const { text } = serverFile({ octet, peers });
    const res = await api.importLocation(admin, importBody(text, over));
    expect(res.status, res.text).toBe(201);
    return res.json as { network: { id: number; name: string }; devices: { name: string; wireguard_pubkey: string; wireguard_ips: string[] }[] };
  }

  it("creates the mapped devices with exactly the imported IPs, owned by the chosen users", async () => {
    // A device that exists before the import gets an address that does not collide.
    const existing = (await mkDevice(admin, "alice")).device;
    const imp = await imported(60, 2);
    const mapping = imp.devices.map((d, i) => ({ ...d, name: `legacy-${i}`, user_id: i === 0 ? aliceId : bobId }));
    const before = await counts();
    const res = await api.mapDevices(admin, imp.network.id, { devices: mapping });
    expect(res.status, res.text).toBe(201);
    expect(await counts()).toMatchObject({ devices: before.devices + 2 });
    for (const [i, m] of mapping.entries()) {
      const [d] = await query<{ id: number; user_id: number; name: string; device_type: string }>(
        "select id, user_id, name, device_type from devices where wireguard_pubkey = $1",
        [m.wireguard_pubkey],
      );
      expect(d).toMatchObject({ user_id: m.user_id, name: `legacy-${i}`, device_type: "user" });
      expect(await ipsOf(d.id, imp.network.id)).toEqual(m.wireguard_ips);
    }
    expect(mapping.map((m) => m.wireguard_ips)).toEqual([
      ["10.60.0.10", "fd60::10"],
      ["10.60.0.20", "fd60::20"],
    ]);
    const other = await ipsOf(existing.id, imp.network.id);
    expect(other).not.toBeNull();
    expect(["10.60.0.10", "10.60.0.20"]).not.toContain(other![0]);
    await expectLocationInvariants(imp.network.id);
    // The config alice downloads for the imported peer carries its old address.
    const [d0] = await query<{ id: number }>("select id from devices where wireguard_pubkey = $1", [mapping[0].wireguard_pubkey]);
    const cfg = await api.deviceConfig(alice, imp.network.id, d0.id);
    expect(cfg.status).toBe(200);
    expect(cfg.text).toContain("Address = 10.60.0.10, fd60::10");
    await api.deleteLocation(admin, imp.network.id);
  });

  it.each([
    ["an address outside the location", 0, { wireguard_ips: ["10.99.0.10"] }, "devices.0.wireguard_ips"],
    ["the gateway address", 1, { wireguard_ips: ["10.61.0.1"] }, "devices.1.wireguard_ips"],
    ["an address twice", 1, { wireguard_ips: ["10.61.0.10"] }, "devices.1.wireguard_ips"],
    ["garbage as address", 0, { wireguard_ips: ["not-an-ip"] }, "devices.0.wireguard_ips"],
    ["an unknown user", 1, { user_id: 999999 }, "devices.1.user_id"],
    ["a bad key", 0, { wireguard_pubkey: "short" }, "devices.0.wireguard_pubkey"],
    ["a missing name", 1, { name: "" }, "devices.1.name"],
    // The same name and key rules as the device routes.
    ["HTML in the name", 0, { name: "<img src=x onerror=alert(1)>" }, "devices.0.name"],
    ["a newline in the name", 1, { name: "two\nlines" }, "devices.1.name"],
    ["a 65-character name", 0, { name: "n".repeat(65) }, "devices.0.name"],
    ["the all-zero key", 0, { wireguard_pubkey: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" }, "devices.0.wireguard_pubkey"],
    ["a number for the key", 1, { wireguard_pubkey: 5 }, "devices.1.wireguard_pubkey"],
    ["a string for user_id", 0, { user_id: "1" }, "devices.0.user_id"],
  ])("%s → 400 with field devices.<i>.<field>, nothing created", async (_label, index, over, field) => {
    const imp = await imported(61, 2);
    const mapping = imp.devices.map((d, i) => ({ ...d, name: uniq("m"), user_id: i === 0 ? aliceId : bobId }));
    Object.assign(mapping[index], over);
    const before = await counts();
    const res = await api.mapDevices(admin, imp.network.id, { devices: mapping });
    expect(res.status, res.text).toBe(400);
    expect(res.json.field).toBe(field);
    expect(await counts()).toEqual(before);
    await api.deleteLocation(admin, imp.network.id);
  });

  it("a key already used by a device → 409, nothing created; non-admin 403; unknown location 404", async () => {
    const imp = await imported(62, 1);
    const taken = (await mkDevice(admin, "bob")).device.wireguard_pubkey;
    const before = await counts();
    const res = await api.mapDevices(admin, imp.network.id, { devices: [{ ...imp.devices[0], wireguard_pubkey: taken, user_id: aliceId }] });
    expect(res.status).toBe(409);
    expect((await api.mapDevices(alice, imp.network.id, { devices: [{ ...imp.devices[0], user_id: aliceId }] })).status).toBe(403);
    expect((await api.mapDevices(admin, 999999, { devices: [{ ...imp.devices[0], user_id: aliceId }] })).status).toBe(404);
    expect((await api.mapDevices(admin, imp.network.id, { devices: [] })).status).toBe(400);
    expect(await counts()).toEqual(before);
    await api.deleteLocation(admin, imp.network.id);
  });

  it("a peer mapped to a user outside the location's allowed groups is not silently dropped from the location", async () => {
    await createUser({ username: "imp-member", groups: ["imp-g"] });
    const imp = await imported(63, 1, { allowed_groups: ["imp-g"] });
    const before = await counts();
    const res = await api.mapDevices(admin, imp.network.id, { devices: [{ ...imp.devices[0], name: "outsider-peer", user_id: bobId }] });
    if (res.status === 400) {
      // Refusing the mapping is fine: it must name the entry and create nothing.
      expect(res.json.field).toBe("devices.0.user_id");
      expect(await counts()).toEqual(before);
    } else {
      expect(res.status, res.text).toBe(201);
      const [d] = await query<{ id: number }>("select id from devices where wireguard_pubkey = $1", [imp.devices[0].wireguard_pubkey]);
      // Answering 201 while the peer lost its imported address would cut it off without a word.
      expect(await ipsOf(d.id, imp.network.id), "the mapped peer keeps its imported address").toEqual(imp.devices[0].wireguard_ips);
    }
    await api.deleteLocation(admin, imp.network.id);
  });
});
