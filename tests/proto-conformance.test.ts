/**
 * The project's .proto files against the field table of docs/gateway-protocol.md: every message's
 * field numbers, types and labels, and the bytes an encoded message puts on the wire.
 */
import protobuf from "protobufjs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";

// "number: [repeated|optional ]type name" exactly as the protocol table lists them.
const TABLE: Record<string, string[]> = {
  "gateway.ConfigurationRequest": ["1: optional string name"],
  "gateway.Configuration": ["1: string name", "2: string prvkey", "4: uint32 port", "5: repeated Peer peers", "6: repeated string addresses", "7: optional enterprise.firewall.FirewallConfig firewall_config"],
  "gateway.Peer": ["1: string pubkey", "2: repeated string allowed_ips", "3: optional string preshared_key", "4: optional uint32 keepalive_interval"],
  "gateway.Update": ["1: UpdateType update_type", "2: Peer peer", "3: Configuration network", "4: enterprise.firewall.FirewallConfig firewall_config", "5: google.protobuf.Empty disable_firewall"],
  "gateway.PeerStats": ["1: string public_key", "2: string endpoint", "3: uint64 upload", "4: uint64 download", "5: uint32 keepalive_interval", "6: uint64 latest_handshake", "7: string allowed_ips"],
  "gateway.StatsUpdate": ["1: uint64 id", "2: google.protobuf.Empty empty", "3: PeerStats peer_stats"],
  "enterprise.firewall.FirewallConfig": ["2: FirewallPolicy default_policy", "3: repeated FirewallRule rules", "4: repeated SnatBinding snat_bindings"],
  "enterprise.firewall.FirewallRule": ["1: int64 id", "2: repeated IpAddress source_addrs", "3: repeated IpAddress destination_addrs", "4: repeated Port destination_ports", "5: repeated Protocol protocols", "6: FirewallPolicy verdict", "7: optional string comment", "8: IpVersion ip_version"],
  "enterprise.firewall.SnatBinding": ["1: int64 id", "2: repeated IpAddress source_addrs", "3: string public_ip", "4: optional string comment"],
  "enterprise.firewall.IpAddress": ["1: string ip", "2: IpRange ip_range", "3: string ip_subnet"],
  "enterprise.firewall.IpRange": ["1: string start", "2: string end"],
  "enterprise.firewall.Port": ["1: uint32 single_port", "2: PortRange port_range"],
  "enterprise.firewall.PortRange": ["1: uint32 start", "2: uint32 end"],
  "worker.Worker": ["1: string id"],
  "worker.GetJobResponse": ["1: string first_name", "2: string last_name", "3: string email", "4: uint32 job_id"],
  "worker.JobStatus": ["1: string id", "2: uint32 job_id", "3: bool success", "4: string public_key", "5: string ssh_key", "6: string yubikey_serial", "7: string error"],
};

const ENUMS: Record<string, Record<string, number>> = {
  "gateway.UpdateType": { CREATE: 0, MODIFY: 1, DELETE: 2 },
  "enterprise.firewall.FirewallPolicy": { ALLOW: 0, DENY: 1 },
  "enterprise.firewall.IpVersion": { IPV4: 0, IPV6: 1 },
  "enterprise.firewall.Protocol": { INVALID: 0, ICMP: 1, TCP: 6, UDP: 17 },
};

const ONEOFS: Record<string, Record<string, string[]>> = {
  "gateway.Update": { update: ["peer", "network", "firewall_config", "disable_firewall"] },
  "gateway.StatsUpdate": { payload: ["empty", "peer_stats"] },
  "enterprise.firewall.IpAddress": { address: ["ip", "ip_range", "ip_subnet"] },
  "enterprise.firewall.Port": { port: ["single_port", "port_range"] },
};

let root: protobuf.Root;
beforeAll(async () => {
  root = new protobuf.Root();
  const dir = join(process.cwd(), "proto");
  root.resolvePath = (_origin, target) => (target.startsWith("google/") ? target : join(dir, target));
  await root.load(["gateway.proto", "worker.proto"], { keepCase: true });
  root.resolveAll();
});

describe("field table", () => {
  for (const [name, fields] of Object.entries(TABLE)) {
    it(`${name} has exactly the protocol's fields`, () => {
      const type = root.lookupType(name);
      const actual = type.fieldsArray
        .slice()
        .sort((a, b) => a.id - b.id)
        .map((f) => {
          const label = f.repeated ? "repeated " : f.options?.proto3_optional ? "optional " : "";
          return `${f.id}: ${label}${f.type} ${f.name}`;
        });
      expect(actual).toEqual(fields);
    });
  }

  it("Configuration never reuses field 3", () => {
    const t = root.lookupType("gateway.Configuration");
    expect(t.fieldsById[3]).toBeUndefined();
    expect(t.reserved).toContainEqual([3, 3]);
  });

  for (const [name, values] of Object.entries(ENUMS)) {
    it(`enum ${name}`, () => expect(root.lookupEnum(name).values).toEqual(values));
  }

  for (const [name, groups] of Object.entries(ONEOFS)) {
    it(`${name} oneofs`, () => {
      const t = root.lookupType(name);
      const real = Object.fromEntries(t.oneofsArray.filter((o) => !o.name.startsWith("_")).map((o) => [o.name, o.oneof]));
      expect(real).toEqual(groups);
    });
  }

  it("services and their calls", () => {
    const gw = root.lookupService("gateway.GatewayService");
    expect(Object.fromEntries(gw.methodsArray.map((m) => [m.name, [m.requestType, !!m.requestStream, m.responseType, !!m.responseStream]]))).toEqual({
      Config: ["ConfigurationRequest", false, "Configuration", false],
      Updates: ["google.protobuf.Empty", false, "Update", true],
      Stats: ["StatsUpdate", true, "google.protobuf.Empty", false],
    });
    const wk = root.lookupService("worker.WorkerService");
    expect(wk.methodsArray.map((m) => `${m.name}(${m.requestType}) ${m.responseType}`)).toEqual([
      "RegisterWorker(Worker) google.protobuf.Empty",
      "GetJob(Worker) GetJobResponse",
      "SetJobDone(JobStatus) google.protobuf.Empty",
    ]);
  });
});

describe("wire bytes", () => {
  it("a peer MODIFY encodes with the protocol's tags and decodes back", () => {
    const Update = root.lookupType("gateway.Update");
    const msg = { update_type: 1, peer: { pubkey: "k", allowed_ips: ["10.0.0.2/32"], keepalive_interval: 25 } };
    const bytes = Update.encode(Update.create(msg)).finish();
    // field 1 varint (update_type) → 0x08 0x01; field 2 (peer), wire type 2 → tag 0x12;
    // inside the peer: field 1 string (0x0a), field 2 string (0x12), field 4 varint (0x20)
    expect([...bytes.subarray(0, 3)]).toEqual([0x08, 0x01, 0x12]);
    const inner = Buffer.from(bytes.slice(4));
    expect([...inner.subarray(0, 3)]).toEqual([0x0a, 0x01, "k".charCodeAt(0)]);
    expect(inner.includes(Buffer.from([0x20, 25]))).toBe(true);
    expect(Update.toObject(Update.decode(bytes), { defaults: false, oneofs: true })).toMatchObject({ peer: msg.peer, update: "peer" });
  });

  it("a stats sample uses varints for the uint64 counters at fields 3, 4 and 6", () => {
    const StatsUpdate = root.lookupType("gateway.StatsUpdate");
    const bytes = StatsUpdate.encode(
      StatsUpdate.create({ id: 7, peer_stats: { public_key: "p", upload: 300, download: 1, latest_handshake: 2 } }),
    ).finish();
    expect([...bytes.subarray(0, 2)]).toEqual([0x08, 7]); // id
    expect(bytes[2]).toBe(0x1a); // field 3 (peer_stats), length-delimited
    const inner = Buffer.from(bytes.slice(4));
    expect(inner.includes(Buffer.from([0x18, 0xac, 0x02]))).toBe(true); // upload = 300
    expect(inner.includes(Buffer.from([0x20, 0x01]))).toBe(true); // download = 1
    expect(inner.includes(Buffer.from([0x30, 0x02]))).toBe(true); // latest_handshake = 2
  });

  it("a firewall rule and SNAT binding round-trip", () => {
    const Cfg = root.lookupType("enterprise.firewall.FirewallConfig");
    const cfg = {
      default_policy: 1,
      rules: [
        {
          id: 5,
          source_addrs: [{ ip_subnet: "10.1.0.0/24" }],
          destination_addrs: [{ ip_range: { start: "192.0.2.10", end: "192.0.2.20" } }],
          destination_ports: [{ single_port: 22 }, { port_range: { start: 8000, end: 9000 } }],
          protocols: [6, 17],
          verdict: 0,
          comment: "ssh",
          ip_version: 0,
        },
      ],
      snat_bindings: [{ id: 1, source_addrs: [{ ip: "10.1.0.2" }], public_ip: "203.0.113.5" }],
    };
    const bytes = Cfg.encode(Cfg.create(cfg)).finish();
    expect(bytes[0]).toBe(0x10); // field 2 varint (default_policy)
    const back = Cfg.toObject(Cfg.decode(bytes), { longs: Number, defaults: false });
    expect(back).toMatchObject(cfg);
  });
});
