/**
 * The gateway service definition, loaded from the project's proto/ (docs/gateway-protocol.md) with
 * the same options the console uses, so both sides see identical JS shapes: keepCase field
 * names, enums as strings, int64 as numbers, defaults filled in, and the name of the set
 * member of a oneof in a virtual field (`update`, `payload`, `address`, `port`).
 */
import * as grpc from "@grpc/grpc-js";
import * as loader from "@grpc/proto-loader";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export function protoDir(): string {
  const candidates = [process.env.DEFGUARD_PROTO_DIR, fileURLToPath(new URL("../proto/", import.meta.url)), join(process.cwd(), "proto")];
  for (const dir of candidates) if (dir && existsSync(join(dir, "gateway.proto"))) return dir;
  throw new Error(`gateway.proto not found (looked in ${candidates.filter(Boolean).join(", ")}); set DEFGUARD_PROTO_DIR`);
}

export const LOADER_OPTIONS: loader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

export function loadGatewayService(): grpc.ServiceClientConstructor {
  const def = loader.loadSync(["gateway.proto"], { ...LOADER_OPTIONS, includeDirs: [protoDir()] });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { gateway: { GatewayService: grpc.ServiceClientConstructor } };
  return pkg.gateway.GatewayService;
}

/** Our additional service (proto/ack.proto): revisions, acknowledgements and state reports. */
export function loadSyncService(): grpc.ServiceClientConstructor {
  const def = loader.loadSync(["ack.proto"], { ...LOADER_OPTIONS, includeDirs: [protoDir()] });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { gatewaysync: { GatewaySyncService: grpc.ServiceClientConstructor } };
  return pkg.gatewaysync.GatewaySyncService;
}

let roundTrip: ((fw: unknown) => unknown) | null = null;

/**
 * A firewall config after a protobuf round trip with the loader options: the form the console
 * digests too (docs/gateway-protocol.md, "Drift").
 */
export function canonicalFirewall(fw: unknown): unknown {
  if (!roundTrip) {
    const def = loader.loadSync(["gateway.proto"], { ...LOADER_OPTIONS, includeDirs: [protoDir()] });
    const m = (def["gateway.GatewayService"] as loader.ServiceDefinition).Updates;
    roundTrip = (x) => (m.responseDeserialize(m.responseSerialize({ update_type: "MODIFY", firewall_config: x })) as { firewall_config: unknown }).firewall_config;
  }
  return roundTrip(fw);
}

/** The agent's version (the repository's package.json), sent as defguard-component-version. */
export function agentVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(fileURLToPath(new URL("../package.json", import.meta.url)), "utf8")) as { version?: string };
    return pkg.version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}
