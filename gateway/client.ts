/**
 * The connection loop: dial the console, open Updates, fetch Config, reconcile, apply every
 * update in order, stream stats; on any end or failure, back off (1 s → 30 s with jitter)
 * and start over with a fresh Config, which is reconciled against the interface without
 * touching unchanged peers.
 *
 * Updates is opened (and its subscription confirmed by the response headers) BEFORE Config is
 * fetched, and what arrives meanwhile is buffered and applied after the configuration: a
 * change made between the two calls is never lost. Updates carry whole peer states, so
 * replaying one that the configuration already contains is a no-op.
 */
import * as grpc from "@grpc/grpc-js";
import { createHash } from "node:crypto";
import { arch, type as osType } from "node:os";
import type { GatewayConfig } from "./config";
import type { InterfaceManager, WireUpdate } from "./manager";
import { agentVersion, loadGatewayService, loadSyncService } from "./proto";
import { peersText } from "../lib/net/state-digest";
import type { WireConfiguration } from "./reconcile";
import type { Dump, Log } from "./wg";

/** Delay before reconnect attempt `attempt` (0-based): min·2^attempt capped at max, ±20 % jitter. */
export function backoffDelay(attempt: number, minMs: number, maxMs: number, random: () => number = Math.random): number {
  const base = Math.min(maxMs, minMs * 2 ** Math.min(attempt, 30));
  const jittered = base * (0.8 + 0.4 * random());
  return Math.round(Math.min(maxMs, Math.max(minMs / 2, jittered)));
}

/** gateway.PeerStats as sent. */
export interface WirePeerStats {
  public_key: string;
  endpoint: string;
  upload: number;
  download: number;
  keepalive_interval: number;
  latest_handshake: number;
  allowed_ips: string;
}

/**
 * Stats to send for one read of the interface: peers that have had a handshake and whose
 * counters (or handshake / endpoint) moved since the last send. `last` is updated in place.
 *
 * Direction follows defguard's own gateway, for wire compatibility with its consoles:
 * upload = bytes the interface SENT to the peer (transfer-tx), download = bytes it RECEIVED
 * from the peer (transfer-rx), i.e. the gateway's point of view.
 */
export function statsToSend(dump: Dump, last: Map<string, string>): WirePeerStats[] {
  const out: WirePeerStats[] = [];
  const present = new Set<string>();
  for (const p of dump.peers) {
    present.add(p.pubkey);
    if (!(p.latestHandshake > 0)) continue;
    const sig = `${p.rx}/${p.tx}/${p.latestHandshake}/${p.endpoint ?? ""}`;
    if (last.get(p.pubkey) === sig) continue;
    last.set(p.pubkey, sig);
    out.push({
      public_key: p.pubkey,
      endpoint: p.endpoint ?? "",
      upload: p.tx,
      download: p.rx,
      keepalive_interval: p.keepalive,
      latest_handshake: p.latestHandshake,
      allowed_ips: p.allowedIps.join(","),
    });
  }
  for (const k of last.keys()) if (!present.has(k)) last.delete(k);
  return out;
}

type Call = grpc.ClientReadableStream<unknown> | grpc.ClientWritableStream<unknown>;

/** The generated client's methods we call (proto-loader clients are untyped). */
interface GatewayStub extends grpc.Client {
  Config(
    req: { name?: string },
    md: grpc.Metadata,
    opts: grpc.CallOptions,
    cb: (err: grpc.ServiceError | null, conf?: WireConfiguration) => void,
  ): grpc.ClientUnaryCall;
  Updates(req: object, md: grpc.Metadata): grpc.ClientReadableStream<WireUpdate>;
  Stats(md: grpc.Metadata, cb: (err: grpc.ServiceError | null) => void): grpc.ClientWritableStream<unknown>;
}

/** gatewaysync.SyncUpdate as delivered (oneofs: true → `item` names the set member). */
interface SyncUpdate {
  item?: "update" | "revision";
  update?: WireUpdate | null;
  revision?: number;
}

type Unary<Req, Res> = (req: Req, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: Res) => void) => grpc.ClientUnaryCall;

/** Our additional service (proto/ack.proto). */
interface SyncStub extends grpc.Client {
  Config: Unary<{ name?: string }, { revision: number; location_id: number; config: WireConfiguration }>;
  Updates(req: object, md: grpc.Metadata): grpc.ClientReadableStream<SyncUpdate>;
  Applied: Unary<{ location_id: number; revision: number; source: "UPDATES" | "CONFIG" }, { accepted: boolean }>;
  Report: Unary<Record<string, unknown>, { in_sync: boolean; want_detail: boolean; compared: boolean }>;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

export class GatewayClient {
  private readonly Service = loadGatewayService();
  private readonly SyncService = loadSyncService();
  /** Whether the console offers GatewaySyncService (false after it answered UNIMPLEMENTED: a defguard console). */
  private syncSupported = true;
  /** The location and the last revision acknowledged, on this connection. */
  private locationId: number | null = null;
  appliedRevision: number | null = null;
  private currentSync: SyncStub | null = null;
  /** Counters for tests and logs. */
  readonly syncCounters = { acks: 0, reports: 0, driftReported: 0 };
  private readonly version = agentVersion();
  private stopped = false;
  private connectedFlag = false;
  private attempt = 0;
  private current: { client: grpc.Client; calls: Call[]; end: (why: string) => void } | null = null;
  private wake: (() => void) | null = null;
  private statsId = 0;
  private readonly lastStats = new Map<string, string>();
  /** For health checks and tests. */
  lastConnectedAt: Date | null = null;
  connections = 0;

  constructor(
    private readonly cfg: GatewayConfig,
    private readonly manager: InterfaceManager,
    private readonly log: Log,
  ) {
    manager.onInterfaceLost = () => this.resync("the interface was lost");
  }

  get connected(): boolean {
    return this.connectedFlag;
  }

  private metadata(): grpc.Metadata {
    const md = new grpc.Metadata();
    md.set("authorization", this.cfg.token);
    md.set("hostname", this.cfg.hostname);
    md.set("defguard-component-version", this.version);
    md.set("defguard-component-system", `${osType()} ${arch()}`);
    return md;
  }

  private newClient(): GatewayStub {
    const creds = this.cfg.tls ? grpc.credentials.createSsl(this.cfg.ca) : grpc.credentials.createInsecure();
    return new this.Service(this.cfg.grpcTarget, creds, {
      "grpc.keepalive_time_ms": 10_000,
      "grpc.keepalive_timeout_ms": 5_000,
      "grpc.keepalive_permit_without_calls": 1,
      "grpc.http2.max_pings_without_data": 0,
      "grpc.max_receive_message_length": 256 * 1024 * 1024,
      "grpc.max_send_message_length": 64 * 1024 * 1024,
      "grpc.initial_reconnect_backoff_ms": 500,
      "grpc.max_reconnect_backoff_ms": 5_000,
    }) as unknown as GatewayStub;
  }

  /** End the current connection; the loop reconnects and reconciles from a fresh Config. */
  resync(why: string): void {
    this.current?.end(why);
  }

  /** Run until stop(). */
  async run(): Promise<void> {
    while (!this.stopped) {
      let ok = false;
      try {
        ok = await this.connectOnce();
      } catch (err) {
        this.log("warn", `connection to ${this.cfg.grpcUrl} failed: ${describeError(err)}`);
      }
      this.connectedFlag = false;
      if (this.stopped) break;
      if (ok) this.attempt = 0;
      const delay = backoffDelay(this.attempt++, this.cfg.backoffMinMs, this.cfg.backoffMaxMs);
      this.log("info", `reconnecting in ${(delay / 1000).toFixed(1)} s`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  stop(): void {
    this.stopped = true;
    this.connectedFlag = false;
    this.current?.end("stopping");
    this.wake?.();
  }

  /**
   * One connection. Resolves when it ends: true when it got as far as applying a
   * configuration (the backoff starts again from its minimum), false otherwise.
   */
  private connectOnce(): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const client = this.newClient();
      const calls: Call[] = [];
      let finished = false;
      let applied = false;
      const timers: NodeJS.Timeout[] = [];
      const end = (why: string, err?: unknown) => {
        if (finished) return;
        finished = true;
        this.connectedFlag = false;
        for (const t of timers) clearInterval(t);
        for (const c of calls) {
          try {
            c.cancel();
          } catch {
            // already closed
          }
        }
        client.close();
        if (this.current?.client === client) this.current = null;
        if (err && !applied) reject(err);
        else {
          if (applied) this.log(err ? "warn" : "info", `disconnected from the console: ${why}${err ? ` (${describeError(err)})` : ""}`);
          resolve(applied);
        }
      };
      this.current = { client, calls, end: (why) => end(why) };

      // Our revisioned service when the console offers it (acknowledgements), else defguard's.
      const sync = this.syncSupported
        ? (new this.SyncService(this.cfg.grpcTarget, grpc.credentials.createInsecure(), { channelOverride: client.getChannel() }) as unknown as SyncStub)
        : null;
      // 1. Updates first; buffer until the configuration is applied.
      const updates: grpc.ClientReadableStream<WireUpdate | SyncUpdate> = sync ? sync.Updates({}, this.metadata()) : client.Updates({}, this.metadata());
      calls.push(updates);
      const buffered: (WireUpdate | SyncUpdate)[] = [];
      let live = false;
      const handle = (u: WireUpdate) => {
        this.manager.applyUpdate(u).catch((err) => {
          this.log("error", `applying an update failed: ${describeError(err)}; resynchronising`);
          end("resynchronising after a failed update");
        });
      };
      // A revision marker: acknowledged once everything before it has been applied.
      const marker = (revision: number) => {
        void this.manager.whenIdle().then(() => {
          if (!finished && sync) this.acknowledge(sync, revision, "UPDATES");
        });
      };
      const dispatch = (m: WireUpdate | SyncUpdate) => {
        if (!sync) return handle(m as WireUpdate);
        const x = m as SyncUpdate;
        if (x.item === "revision" || (x.item === undefined && x.update == null)) marker(Number(x.revision ?? 0));
        else if (x.update) handle(x.update);
      };
      updates.on("data", (u: WireUpdate | SyncUpdate) => {
        if (live) dispatch(u);
        else buffered.push(u);
      });
      updates.on("error", (err: grpc.ServiceError) => {
        if (err.code === grpc.status.CANCELLED && finished) return;
        if (err.code === grpc.status.UNIMPLEMENTED && sync) {
          // A defguard console: no revisions; use GatewayService from now on.
          this.syncSupported = false;
          this.log("info", "the console does not offer revision acknowledgements (GatewaySyncService); using GatewayService only");
          end("switching to GatewayService");
          return;
        }
        if (err.code === grpc.status.UNAUTHENTICATED) this.log("error", "the console rejected the token (UNAUTHENTICATED): check DEFGUARD_TOKEN");
        end("update stream failed", err);
      });
      updates.on("end", () => end("the console ended the update stream"));

      const headersTimeout = setTimeout(() => end("no answer from the console", new Error("timed out waiting for the update stream")), 20_000);
      timers.push(headersTimeout);
      updates.once("metadata", (md: grpc.Metadata) => {
        clearTimeout(headersTimeout);
        if (finished) return;
        const consoleVersion = md.get("defguard-component-version")[0];
        // 2. Config, 3. reconcile, 4. buffered updates, 5. live.
        const deadline = new Date(Date.now() + 60_000);
        const request = this.cfg.name ? { name: this.cfg.name } : {};
        const getConfig = (cb: (err: grpc.ServiceError | null, conf?: WireConfiguration, revision?: number) => void) =>
          sync
            ? sync.Config(request, this.metadata(), { deadline }, (err, r) => {
                if (r) this.locationId = Number(r.location_id);
                cb(err, r?.config ?? undefined, r ? Number(r.revision) : undefined);
              })
            : client.Config(request, this.metadata(), { deadline }, (err, conf) => cb(err, conf));
        getConfig(
          (err: grpc.ServiceError | null, conf?: WireConfiguration, revision?: number) => {
            if (finished) return;
            if (err || !conf) {
              if (err?.code === grpc.status.UNAUTHENTICATED) this.log("error", "the console rejected the token (UNAUTHENTICATED): check DEFGUARD_TOKEN");
              end("Config failed", err ?? new Error("empty configuration"));
              return;
            }
            this.manager
              .applyConfiguration(conf)
              .then(() => {
                if (finished) return;
                applied = true;
                if (sync && revision !== undefined) this.acknowledge(sync, revision, "CONFIG");
                for (const u of buffered.splice(0)) dispatch(u);
                live = true;
                this.connectedFlag = true;
                this.connections++;
                this.lastConnectedAt = new Date();
                this.log("info", `connected to the console at ${this.cfg.grpcUrl}${consoleVersion ? ` (version ${consoleVersion})` : ""} as "${this.cfg.hostname}"`);
                this.startStats(client, calls, timers);
                if (sync) {
                  this.currentSync = sync;
                  this.startReports(sync, timers, () => finished);
                }
              })
              .catch((e) => end("applying the configuration failed", e));
          },
        );
      });
    });
  }

  /** Tell the console that everything up to `revision` is applied (peers and firewall). */
  private acknowledge(sync: SyncStub, revision: number, source: "UPDATES" | "CONFIG"): void {
    if (this.locationId === null) return;
    if (this.appliedRevision !== null && revision <= this.appliedRevision && source === "UPDATES") return;
    this.appliedRevision = revision;
    sync.Applied({ location_id: this.locationId, revision, source }, this.metadata(), { deadline: new Date(Date.now() + 30_000) }, (err, r) => {
      if (err) this.log("warn", `acknowledging revision ${revision} failed: ${describeError(err)}`);
      else if (!r?.accepted) this.log("warn", `the console did not accept the acknowledgement of revision ${revision}`);
      else this.syncCounters.acks++;
    });
  }

  /** Send a state report now (also every DEFGUARD_STATE_REPORT_PERIOD s): digests, and the peer list when the console asks. */
  async reportState(sync: SyncStub): Promise<{ in_sync: boolean; compared: boolean } | null> {
    if (this.locationId === null || this.appliedRevision === null || !this.manager.isUp) return null;
    const state = await this.manager.liveState();
    const base = {
      location_id: this.locationId,
      revision: this.appliedRevision,
      peers_digest: sha256(peersText(state.peers)),
      firewall_digest: state.firewall === null ? "" : sha256(state.firewall),
    };
    const call = (msg: Record<string, unknown>) =>
      new Promise<{ in_sync: boolean; want_detail: boolean; compared: boolean }>((resolve, reject) =>
        sync.Report(msg, this.metadata(), { deadline: new Date(Date.now() + 30_000) }, (err, r) => (err || !r ? reject(err ?? new Error("empty answer")) : resolve(r))),
      );
    let r = await call(base);
    if (r.want_detail) {
      this.syncCounters.driftReported++;
      this.log("warn", `state report: the live interface or firewall differs from revision ${base.revision}; sending the detail`);
      r = await call({ ...base, peers: state.peers, detail: true });
    }
    this.syncCounters.reports++;
    return r;
  }

  /** A state report now, on the current connection (tests, diagnostics); null when there is none to send. */
  reportNow(): Promise<{ in_sync: boolean; compared: boolean } | null> {
    return this.currentSync && this.connectedFlag ? this.reportState(this.currentSync) : Promise.resolve(null);
  }

  private startReports(sync: SyncStub, timers: NodeJS.Timeout[], finished: () => boolean): void {
    let busy = false;
    timers.push(
      setInterval(() => {
        if (busy || finished()) return;
        busy = true;
        this.reportState(sync)
          .catch((err) => this.log("warn", `state report failed: ${describeError(err)}`))
          .finally(() => {
            busy = false;
          });
      }, this.cfg.reportPeriod * 1000),
    );
  }

  private startStats(client: GatewayStub, calls: Call[], timers: NodeJS.Timeout[]): void {
    let call: grpc.ClientWritableStream<unknown> | null = null;
    let lastSent = Date.now();
    const open = () => {
      const c = client.Stats(
        this.metadata(),
        (err: grpc.ServiceError | null) => {
          if (err && err.code !== grpc.status.CANCELLED) this.log("warn", `stats stream ended: ${describeError(err)}`);
          if (call === c) call = null;
        },
      );
      c.on("error", () => {});
      calls.push(c);
      call = c;
    };
    open();
    const write = (msg: Record<string, unknown>) => {
      if (!call) open();
      call!.write({ id: ++this.statsId, ...msg });
      lastSent = Date.now();
    };
    let reading = false;
    timers.push(
      setInterval(() => {
        if (reading || !this.manager.isUp) return;
        reading = true;
        this.manager.wg
          .dump()
          .then((dump) => {
            for (const s of statsToSend(dump, this.lastStats)) write({ peer_stats: s });
          })
          .catch((err) => this.log("warn", `reading peer statistics failed: ${describeError(err)}`))
          .finally(() => {
            reading = false;
          });
      }, this.cfg.statsPeriod * 1000),
      setInterval(() => {
        if (Date.now() - lastSent >= this.cfg.statsKeepalive * 1000) write({ empty: {} });
      }, 1000),
    );
  }
}

export function describeError(err: unknown): string {
  if (!err) return "unknown error";
  const e = err as Partial<grpc.ServiceError>;
  if (typeof e.code === "number" && e.details !== undefined) return `${grpc.status[e.code] ?? e.code}: ${e.details}`;
  return err instanceof Error ? err.message : String(err);
}
