import * as grpc from "@grpc/grpc-js";
import { randomUUID } from "node:crypto";
import { secret } from "../config";
import { VERSION } from "../settings/info";
import { locationFromToken } from "../gateways/jwt";
import { gatewayConfiguration, gatewayConnected, gatewayDisconnected, gatewaySeen } from "../gateways/service";
import { subscribe, type WireUpdate } from "../gateways/hub";
import { StatsBuffer } from "../stats/ingest";
import { loadProtos } from "./protos";
import { describeError } from "../log-errors";

export { loadProtos };

/** This console process, as recorded on the gateways whose update streams it holds. */
export const PROCESS_ID = randomUUID();

function first(md: grpc.Metadata, key: string): string | null {
  const v = md.get(key)[0];
  return v === undefined ? null : String(v);
}

interface GatewayCaller {
  locationId: number;
  hostname: string;
  version: string | null;
}

/** The location a call's token is for (raw JWT in `authorization`; a "Bearer " prefix is tolerated). */
function authenticate(md: grpc.Metadata): GatewayCaller | null {
  const raw = first(md, "authorization");
  if (!raw) return null;
  const locationId = locationFromToken(raw.replace(/^Bearer\s+/i, ""), secret("gatewaySecret"));
  if (locationId === null) return null;
  return {
    locationId,
    hostname: (first(md, "hostname") ?? "unknown").slice(0, 253),
    version: first(md, "defguard-component-version")?.slice(0, 64) ?? null,
  };
}

const versionMetadata = () => {
  const md = new grpc.Metadata();
  md.set("defguard-component-version", VERSION);
  return md;
};

const unauthenticated = { code: grpc.status.UNAUTHENTICATED, details: "invalid or missing gateway token" };

function logRefusal(kind: string, md: grpc.Metadata, peer: string) {
  console.warn(`[grpc] ${kind}: refused call from ${peer} (hostname ${first(md, "hostname") ?? "?"}): invalid token`);
}

const gatewayService: grpc.UntypedServiceImplementation = {
  Config(call: grpc.ServerUnaryCall<{ name?: string }, unknown>, cb: grpc.sendUnaryData<unknown>) {
    const who = authenticate(call.metadata);
    if (!who) {
      logRefusal("Config", call.metadata, call.getPeer());
      return cb(unauthenticated);
    }
    call.sendMetadata(versionMetadata());
    void (async () => {
      const cfg = await gatewayConfiguration(who.locationId);
      await gatewaySeen(who.locationId, who.hostname, { name: call.request?.name ?? null, version: who.version });
      return cfg;
    })().then(
      (cfg) => cb(null, cfg),
      (err) => {
        const notFound = (err as { status?: number }).status === 404;
        if (!notFound) console.error("[grpc] Config failed:", describeError(err));
        cb({ code: notFound ? grpc.status.NOT_FOUND : grpc.status.INTERNAL, details: notFound ? "location not found" : "internal error" });
      },
    );
  },

  Updates(call: grpc.ServerWritableStream<unknown, WireUpdate>) {
    const who = authenticate(call.metadata);
    if (!who) {
      logRefusal("Updates", call.metadata, call.getPeer());
      call.emit("error", unauthenticated);
      return;
    }
    call.sendMetadata(versionMetadata());
    let closed = false;
    const unsubscribe = subscribe({
      locationId: who.locationId,
      write: (u) => {
        if (!closed) call.write(u);
      },
      end: () => {
        if (!closed) call.end();
      },
    });
    const close = () => {
      if (closed) return;
      closed = true;
      unsubscribe();
      gatewayDisconnected(who.locationId, who.hostname).catch((err) => console.error("[grpc] recording disconnect failed:", describeError(err)));
    };
    call.on("cancelled", close);
    call.on("close", close);
    call.on("finish", close);
    call.on("error", close);
    gatewaySeen(who.locationId, who.hostname, { version: who.version })
      .then(() => gatewayConnected(who.locationId, who.hostname, PROCESS_ID))
      .catch((err) => {
        // The location is gone (or the database is): this stream has nothing to carry.
        console.warn(`[grpc] Updates for location ${who.locationId} refused: ${err instanceof Error ? err.message : err}`);
        if (!closed) call.emit("error", { code: grpc.status.NOT_FOUND, details: "location not found" });
        close();
      });
  },

  Stats(call: grpc.ServerReadableStream<{ id: number; payload?: string; peer_stats?: Record<string, unknown> }, unknown>, cb: grpc.sendUnaryData<unknown>) {
    const who = authenticate(call.metadata);
    if (!who) {
      logRefusal("Stats", call.metadata, call.getPeer());
      return cb(unauthenticated);
    }
    const buffer = new StatsBuffer(who.locationId);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      void buffer.flush().then(() => cb(null, {}));
    };
    call.on("data", (msg) => {
      const s = msg.peer_stats;
      if (msg.payload !== "peer_stats" || !s || typeof s.public_key !== "string") return;
      buffer.push({
        public_key: s.public_key,
        endpoint: String(s.endpoint ?? ""),
        upload: Number(s.upload ?? 0),
        download: Number(s.download ?? 0),
        latest_handshake: Number(s.latest_handshake ?? 0),
      });
    });
    call.on("end", finish);
    // A stream cut mid-message: keep what arrived, log, and carry on serving.
    call.on("error", (err) => {
      console.warn(`[grpc] stats stream of location ${who.locationId} (${who.hostname}) ended with an error: ${err.message}`);
      done = true;
      void buffer.flush();
    });
  },
};

export interface GrpcServerHandle {
  port: number;
  stop(): Promise<void>;
}

export async function startGrpcServer(host: string, port: number): Promise<GrpcServerHandle> {
  const protos = loadProtos();
  const server = new grpc.Server({
    "grpc.keepalive_time_ms": 10_000,
    "grpc.keepalive_timeout_ms": 5_000,
    "grpc.keepalive_permit_without_calls": 1,
    "grpc.http2.min_ping_interval_without_data_ms": 5_000,
  });
  server.addService(protos.gateway.GatewayService.service, gatewayService);
  const bound = await new Promise<number>((res, rej) =>
    server.bindAsync(`${host}:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? rej(err) : res(p))),
  );
  return {
    port: bound,
    stop: () =>
      new Promise<void>((res) => {
        server.tryShutdown(() => res());
        setTimeout(() => {
          server.forceShutdown();
          res();
        }, 3000).unref();
      }),
  };
}
