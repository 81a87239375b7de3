import "server-only";
import * as grpc from "@grpc/grpc-js";
import * as loader from "@grpc/proto-loader";
import { existsSync } from "node:fs";
import { join } from "node:path";

/* The protocol's .proto files (proto/), loaded for grpc-js. A module of its own so that
   clients (tests, the gateway agent, e2e specs) can load them without the server. */

function protoDir(): string {
  const dir = join(process.cwd(), "proto");
  if (!existsSync(join(dir, "gateway.proto"))) throw new Error(`proto files not found in ${dir}`);
  return dir;
}

export function loadProtos() {
  const def = loader.loadSync(["gateway.proto", "worker.proto", "ack.proto"], {
    includeDirs: [protoDir()],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(def) as unknown as {
    gateway: { GatewayService: grpc.ServiceClientConstructor };
    worker: { WorkerService: grpc.ServiceClientConstructor };
    gatewaysync: { GatewaySyncService: grpc.ServiceClientConstructor };
  };
}

