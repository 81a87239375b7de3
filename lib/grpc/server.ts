import "server-only";
import * as grpc from "@grpc/grpc-js";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { grpcTlsFiles } from "../config";
import { VERSION } from "../settings/info";
import { authenticateGateway, gatewayConfiguration, gatewayConnected, gatewayDisconnected, gatewaySeen } from "../gateways/service";
import { register, subscribe, wireguardOffCount, type CutReason, type WireUpdate } from "../gateways/hub";
import { disabledModules } from "../auth/session";
import { MODULE_DISABLED_MSG, type ModuleName } from "../auth/modules";
import { acknowledge, currentRevision, reportState, type AppliedMessage, type StateReportMessage } from "../gateways/sync";
import { StatsBuffer } from "../stats/ingest";
import { loadProtos } from "./protos";
import { describeError } from "../log-errors";
import { isWorkerToken, jobDone, nextJob, registerWorker, workerCallRefusal, type JobStatusMessage, type WorkerCallResult } from "../provisioning/service";

export { loadProtos };

/** This console process, as recorded on the gateways whose update streams it holds. */
export const PROCESS_ID = randomUUID();

function first(md: grpc.Metadata, key: string): string | null {
  const v = md.get(key)[0];
  return v === undefined ? null : String(v);
}

interface GatewayCaller {
  locationId: number;
  generation: number;
  hostname: string;
  version: string | null;
  /** The hub's switch-off count when the module switch was read (see Session.switchesSeen). */
  switchesSeen: number;
}

type Refusal = { code: grpc.status; details: string };

const unauthenticated: Refusal = { code: grpc.status.UNAUTHENTICATED, details: "invalid or missing gateway token" };
const revoked: Refusal = { code: grpc.status.UNAUTHENTICATED, details: "gateway token revoked" };
const locationGone: Refusal = { code: grpc.status.NOT_FOUND, details: "location not found" };
const removed: Refusal = { code: grpc.status.UNAVAILABLE, details: "gateway removed by an administrator" };
const internal: Refusal = { code: grpc.status.INTERNAL, details: "internal error" };

/**
 * A module switched off in Settings → Global: its gRPC calls answer PERMISSION_DENIED naming it
 * (as the licence gate of the worker calls does), and nothing changes. Read from the database on
 * every call, as the REST routes read it, so switching the module on again needs no restart.
 */
const moduleDisabled = (mod: ModuleName): Refusal => ({ code: grpc.status.PERMISSION_DENIED, details: MODULE_DISABLED_MSG[mod] });

/**
 * A switched-off module's refusals repeat with every retry of every gateway or worker: one log
 * line per key (location or worker call) every REFUSAL_LOG_MS, saying how many were not logged.
 */
const REFUSAL_LOG_MS = 5 * 60_000;
const refusalsLogged = new Map<string, { at: number; quiet: number }>();
function warnRefusal(key: string, message: string): void {
  const now = Date.now();
  const last = refusalsLogged.get(key);
  if (last && now - last.at < REFUSAL_LOG_MS) {
    last.quiet++;
    return;
  }
  console.warn(last?.quiet ? `${message} (and ${last.quiet} more refused since the last such line)` : message);
  refusalsLogged.set(key, { at: now, quiet: 0 });
}

async function moduleRefusal(mod: ModuleName): Promise<Refusal | null> {
  return (await disabledModules()).includes(mod) ? moduleDisabled(mod) : null;
}

const cutRefusal = (why: CutReason): Refusal => (why === "revoked" ? revoked : why === "module_disabled" ? moduleDisabled("wireguard") : removed);

/**
 * Who is calling: the token (raw JWT in `authorization`; a "Bearer " prefix is tolerated) must
 * be valid and of its location's current generation, and then (so the switch is revealed only to
 * gateways) the WireGuard module must be on. A refusal is logged and returned.
 */
async function authenticate(kind: string, call: { metadata: grpc.Metadata; getPeer(): string }): Promise<GatewayCaller | Refusal> {
  const md = call.metadata;
  const raw = first(md, "authorization");
  let auth: Awaited<ReturnType<typeof authenticateGateway>>;
  try {
    auth = raw ? await authenticateGateway(raw.replace(/^Bearer\s+/i, "")) : { ok: false, reason: "invalid" };
  } catch (err) {
    console.error(`[grpc] ${kind}: checking the token failed:`, err);
    return internal;
  }
  if (!auth.ok) {
    if (auth.reason === "no-location") return locationGone;
    const why = auth.reason === "revoked" ? `revoked token of location ${auth.locationId}` : "invalid token";
    console.warn(`[grpc] ${kind}: refused call from ${call.getPeer()} (hostname ${first(md, "hostname") ?? "?"}): ${why}`);
    return auth.reason === "revoked" ? revoked : unauthenticated;
  }
  const switchesSeen = wireguardOffCount();
  let off: Refusal | null;
  try {
    off = await moduleRefusal("wireguard");
  } catch (err) {
    console.error(`[grpc] ${kind}: reading the module switches failed:`, describeError(err));
    return internal;
  }
  if (off) {
    warnRefusal(`location ${auth.locationId}`, `[grpc] ${kind}: refused call from ${call.getPeer()} (location ${auth.locationId}): ${off.details}`);
    return off;
  }
  return {
    locationId: auth.locationId,
    generation: auth.generation,
    hostname: (first(md, "hostname") ?? "unknown").slice(0, 253),
    version: first(md, "defguard-component-version")?.slice(0, 64) ?? null,
    switchesSeen,
  };
}

const refused = (who: GatewayCaller | Refusal): who is Refusal => "code" in who;

const versionMetadata = () => {
  const md = new grpc.Metadata();
  md.set("defguard-component-version", VERSION);
  return md;
};

/**
 * An update stream: GatewayService.Updates (`wrap` passes updates through, no markers) or
 * GatewaySyncService.Updates (updates wrapped in SyncUpdate, and a revision marker after each change).
 */
function serveUpdates<M>(kind: string, call: grpc.ServerWritableStream<unknown, M>, wrap: (u: WireUpdate) => M, marker: ((revision: number) => M) | null) {
  let closed = false;
  let after: (() => void) | null = null;
  const close = () => {
    if (closed) return;
    closed = true;
    after?.();
  };
  call.on("cancelled", close);
  call.on("close", close);
  call.on("finish", close);
  call.on("error", close);
  const fail = (r: Refusal) => {
    if (!closed) call.emit("error", r);
    close();
  };
  void (async () => {
    const who = await authenticate(kind, call);
    if (closed) return;
    if (refused(who)) return fail(who);
    call.sendMetadata(versionMetadata());
    const unsubscribe = subscribe({
      locationId: who.locationId,
      hostname: who.hostname,
      generation: who.generation,
      switchesSeen: who.switchesSeen,
      write: (u) => {
        if (!closed) call.write(wrap(u));
      },
      ...(marker
        ? {
            mark: (revision: number) => {
              if (!closed) call.write(marker(revision));
            },
          }
        : {}),
      end: () => {
        if (!closed) call.end();
      },
      cut: (why) => fail(cutRefusal(why)),
    });
    let connected = false;
    after = () => {
      unsubscribe();
      if (connected) track(gatewayDisconnected(who.locationId, who.hostname).catch((err) => console.error("[grpc] recording disconnect failed:", describeError(err))));
    };
    try {
      await gatewayConnected(who.locationId, who.hostname, PROCESS_ID, { version: who.version });
      connected = true;
      // Ended while the connection was being recorded: record its end too.
      if (closed) track(gatewayDisconnected(who.locationId, who.hostname).catch((err) => console.error("[grpc] recording disconnect failed:", describeError(err))));
    } catch (err) {
      // The location is gone (or the database is): this stream has nothing to carry.
      console.warn(`[grpc] Updates for location ${who.locationId} refused: ${describeError(err)}`);
      fail(locationGone);
    }
  })();
}

const gatewayService: grpc.UntypedServiceImplementation = {
Config(call: grpc.ServerUnaryCall<{ name?: string }, unknown>, cb: grpc.sendUnaryData<unknown>) {
  void (async () => {
    const who = await authenticate("Config", call);
    if (refused(who)) return cb(who);
    call.sendMetadata(versionMetadata());
    try {
      const cfg = await gatewayConfiguration(who.locationId);
      await gatewaySeen(who.locationId, who.hostname, { name: call.request?.name ?? null, version: who.version });
      cb(null, cfg);
    } catch (err) {
      const notFound = (err as { status?: number }).status === 404;
      if (!notFound) console.error("[grpc] Config failed:", describeError(err));
      cb(notFound ? locationGone : internal);
    }
  })();
},

Updates(call: grpc.ServerWritableStream<unknown, WireUpdate>) {
  serveUpdates("Updates", call, (u) => u, null);
},

Stats(call: grpc.ServerReadableStream<{ id: number; payload?: string; peer_stats?: Record<string, unknown> }, unknown>, cb: grpc.sendUnaryData<unknown>) {
  void (async () => {
    // Messages wait in the stream until the "data" listener below is attached.
    const who = await authenticate("Stats", call);
    if (refused(who)) return cb(who);
    const buffer = new StatsBuffer(who.locationId);
    let done = false;
    let unregister = () => {};
    const finish = (status: Refusal | null) => {
      if (done) return;
      done = true;
      unregister();
      track(buffer.flush().then(() => (status ? cb(status) : cb(null, {}))));
    };
    unregister = register({
      locationId: who.locationId,
      hostname: who.hostname,
      generation: who.generation,
      switchesSeen: who.switchesSeen,
      cut: (why) => finish(cutRefusal(why)),
    });
    call.on("data", (msg) => {
      if (done) return;
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
    call.on("end", () => finish(null));
    // A stream cut mid-message (or cancelled by the gateway): keep what arrived and carry on serving.
    const dropped = () => {
      if (done) return;
      done = true;
      unregister();
      track(buffer.flush());
    };
    call.on("error", (err) => {
      console.warn(`[grpc] stats stream of location ${who.locationId} (${who.hostname}) ended with an error: ${err.message}`);
      dropped();
    });
    call.on("cancelled", dropped);
    if (call.cancelled) dropped();
  })();
},
};

/**
 * Our agent's additional service (proto/ack.proto, docs/gateway-protocol.md "Revisions"): Config
 * with the revision it describes (read before the state, so a change committed meanwhile is
 * never claimed), the update stream with revision markers, acknowledgements and state reports.
 */
const syncService: grpc.UntypedServiceImplementation = {
Config(call: grpc.ServerUnaryCall<{ name?: string }, unknown>, cb: grpc.sendUnaryData<unknown>) {
  void (async () => {
    const who = await authenticate("GatewaySync/Config", call);
    if (refused(who)) return cb(who);
    call.sendMetadata(versionMetadata());
    try {
      const revision = await currentRevision(who.locationId);
      const cfg = await gatewayConfiguration(who.locationId);
      await gatewaySeen(who.locationId, who.hostname, { name: call.request?.name ?? null, version: who.version });
      cb(null, { revision, location_id: who.locationId, config: cfg });
    } catch (err) {
      const notFound = (err as { status?: number }).status === 404;
      if (!notFound) console.error("[grpc] GatewaySync/Config failed:", describeError(err));
      cb(notFound ? locationGone : internal);
    }
  })();
},

Updates(call: grpc.ServerWritableStream<unknown, unknown>) {
  serveUpdates("GatewaySync/Updates", call, (update) => ({ update }), (revision) => ({ revision }));
},

Applied(call: grpc.ServerUnaryCall<AppliedMessage, unknown>, cb: grpc.sendUnaryData<unknown>) {
  void (async () => {
    const who = await authenticate("GatewaySync/Applied", call);
    if (refused(who)) return cb(who);
    try {
      cb(null, await acknowledge(who, call.request));
    } catch (err) {
      console.error("[grpc] GatewaySync/Applied failed:", describeError(err));
      cb(internal);
    }
  })();
},

Report(call: grpc.ServerUnaryCall<StateReportMessage, unknown>, cb: grpc.sendUnaryData<unknown>) {
  void (async () => {
    const who = await authenticate("GatewaySync/Report", call);
    if (refused(who)) return cb(who);
    try {
      cb(null, await reportState(who, call.request));
    } catch (err) {
      console.error("[grpc] GatewaySync/Report failed:", describeError(err));
      cb(internal);
    }
  })();
},
};

/**
 * Database writes a stream's end causes (recording a gateway's disconnect, the last statistics
 * batch). Shutdown waits for them before closing the pool, so they are never cut off by
 * "the database system is shutting down".
 */
const pendingWrites = new Set<Promise<unknown>>();
function track(p: Promise<unknown>): void {
const q = p.catch(() => {}).finally(() => pendingWrites.delete(q));
pendingWrites.add(q);
}

/** Wait (at most `timeoutMs`) for the writes caused by ended streams. */
export async function settleStreamWrites(timeoutMs = 5000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...pendingWrites]),
    new Promise((r) => (timer = setTimeout(r, timeoutMs))),
  ]);
  clearTimeout(timer);
}

export interface GrpcServerHandle {
  port: number;
  stop(): Promise<void>;
}

/** TLS with DEFGUARD_GRPC_CERT / DEFGUARD_GRPC_KEY (PEM files), else h2c. */
function serverCredentials(): grpc.ServerCredentials {
  const files = grpcTlsFiles();
  if (!files) return grpc.ServerCredentials.createInsecure();
  const read = (path: string, what: string) => {
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`cannot read the gRPC TLS ${what} ${path}: ${err instanceof Error ? err.message : err}`);
    }
  };
  return grpc.ServerCredentials.createSsl(null, [{ cert_chain: read(files.cert, "certificate"), private_key: read(files.key, "key") }], false);
}

/** Whether the gRPC server speaks TLS (for start-up logs). */
export const grpcTls = () => grpcTlsFiles() !== null;

/** The address of a gRPC peer ("127.0.0.1:40000", "[2001:db8::1]:40000", with or without an "ipv4:"/"ipv6:" prefix). */
function peerIp(peer: string): string | null {
  const p = peer.replace(/^ipv[46]:/, "");
  const m = /^\[([^\]]+)\]:\d+$/.exec(p) ?? /^([^:]+):\d+$/.exec(p);
  return m ? m[1] : null;
}

const workerRefused: Refusal = { code: grpc.status.UNAUTHENTICATED, details: "invalid or missing worker token" };

/** A worker call carries a worker JWT (GET /api/v1/worker/token); a gateway token is refused. */
function workerAuthorised(kind: string, call: { metadata: grpc.Metadata; getPeer(): string }): boolean {
  const raw = first(call.metadata, "authorization");
  if (raw && isWorkerToken(raw.replace(/^Bearer\s+/i, ""))) return true;
  console.warn(`[grpc] worker ${kind}: refused call from ${call.getPeer()}: invalid or missing worker token`);
  return false;
}

function answer<T>(cb: grpc.sendUnaryData<unknown>, r: WorkerCallResult<T>, value: (v: T) => unknown) {
  if (r.ok) return cb(null, value(r.value));
  cb({ code: grpc.status[r.code], details: r.details });
}

/**
 * One worker call: the worker token, then the module switch (PERMISSION_DENIED while the
 * provisioning module is off in Settings → Global), then the licence gate (PERMISSION_DENIED while
 * enterprise features are unavailable), then the call itself. A refused call changes nothing.
 */
function workerCall<T>(kind: string, call: { metadata: grpc.Metadata; getPeer(): string }, cb: grpc.sendUnaryData<unknown>, run: () => Promise<WorkerCallResult<T>>, value: (v: T) => unknown) {
  if (!workerAuthorised(kind, call)) return cb(workerRefused);
  moduleRefusal("worker")
    .then(async (off) => {
      if (off) {
        warnRefusal(`worker ${kind}`, `[grpc] worker ${kind}: refused call from ${call.getPeer()}: ${off.details}`);
        return cb(off);
      }
      const refusal = await workerCallRefusal();
      if (refusal) {
        console.warn(`[grpc] worker ${kind}: refused call from ${call.getPeer()}: ${refusal.details}`);
        return answer(cb, refusal, value);
      }
      answer(cb, await run(), value);
    })
    .catch((err) => {
      console.error(`[grpc] ${kind} failed:`, describeError(err));
      cb(internal);
    });
}

const workerService: grpc.UntypedServiceImplementation = {
  RegisterWorker(call: grpc.ServerUnaryCall<{ id: string }, unknown>, cb: grpc.sendUnaryData<unknown>) {
    workerCall("RegisterWorker", call, cb, () => registerWorker(call.request.id, peerIp(call.getPeer())), () => ({}));
  },
  GetJob(call: grpc.ServerUnaryCall<{ id: string }, unknown>, cb: grpc.sendUnaryData<unknown>) {
    workerCall("GetJob", call, cb, () => nextJob(call.request.id, peerIp(call.getPeer())), (job) => job);
  },
  SetJobDone(call: grpc.ServerUnaryCall<JobStatusMessage, unknown>, cb: grpc.sendUnaryData<unknown>) {
    workerCall(
      "SetJobDone",
      call,
      cb,
      async () => {
        await jobDone(call.request, peerIp(call.getPeer()));
        return { ok: true as const, value: null };
      },
      () => ({}),
    );
  },
};

export async function startGrpcServer(host: string, port: number): Promise<GrpcServerHandle> {
  const protos = loadProtos();
  const server = new grpc.Server({
    "grpc.keepalive_time_ms": 10_000,
    "grpc.keepalive_timeout_ms": 5_000,
    "grpc.keepalive_permit_without_calls": 1,
    "grpc.http2.min_ping_interval_without_data_ms": 5_000,
  });
  server.addService(protos.gateway.GatewayService.service, gatewayService);
  server.addService(protos.worker.WorkerService.service, workerService);
  server.addService(protos.gatewaysync.GatewaySyncService.service, syncService);
  const bound = await new Promise<number>((res, rej) =>
    server.bindAsync(`${host.includes(":") ? `[${host}]` : host}:${port}`, serverCredentials(), (err, p) => (err ? rej(err) : res(p))),
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
