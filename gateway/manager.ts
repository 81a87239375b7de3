/**
 * Owns the WireGuard interface and its firewall table: applies full configurations and
 * single updates, one at a time (a serial queue), as the minimal ops from reconcile.ts.
 *
 * - Full configuration (first Config, every reconnect, `network` MODIFY): the interface's
 *   real state (`wg show dump` + `ip -j address`) is diffed against the desired state; only
 *   what differs is touched. The interface is created once per agent run (or adopted when
 *   it already exists) and never recreated while it exists.
 * - Peer CREATE/MODIFY/DELETE: diffed against the agent's model of the interface (kept in
 *   step with applyOps); a peer already in the wanted state costs nothing.
 * - A failed command: the model is re-read from the interface and the error is passed on, so
 *   the connection loop can resynchronise with a fresh Config.
 * - Firewall: the first table of an agent run (also over an adopted one) replaces the whole
 *   table; later ones are applied incrementally against what this run applied last (only new
 *   sets, changed rules, sets no longer used; gateway/firewall.ts), falling back to the whole
 *   table when the incremental script fails. Either is one `nft -f` transaction.
 * - A failed firewall apply is logged and not passed on: `nft -f` is atomic, so the previous
 *   table keeps filtering, and a resynchronisation would fail the same way.
 */
import type { GatewayConfig } from "./config";
import {
  firewallModel,
  firewallTableName,
  forwardHandles,
  fullScript,
  incrementalScript,
  NFT_FAMILY,
  sameFirewall,
  type FirewallModel,
  type FirewallModelCache,
  type WireFirewallConfig,
} from "./firewall";
import {
  applyOps,
  describeOps,
  desiredState,
  diff,
  normalizePeer,
  peerOps,
  type InterfaceState,
  type Op,
  type WireConfiguration,
  type WirePeer,
} from "./reconcile";
import { nftApply, nftDeleteTable, nftListTable, runHook, type Log, type WgDevice } from "./wg";
import { firewallText, tamperedFirewallText, type PeerAllowedIps } from "../lib/net/state-digest";
import { canonicalFirewall } from "./proto";

/** gateway.Update as proto-loader delivers it (oneofs: true → `update` names the set member). */
export interface WireUpdate {
  update_type?: "CREATE" | "MODIFY" | "DELETE" | number;
  update?: "peer" | "network" | "firewall_config" | "disable_firewall";
  peer?: WirePeer | null;
  network?: WireConfiguration | null;
  firewall_config?: WireFirewallConfig | null;
  disable_firewall?: object | null;
}

const isPeerOp = (o: Op) => o.op === "upsert-peer" || o.op === "remove-peer";

export class InterfaceManager {
  /** The model of the interface; null until it is up. */
  private applied: InterfaceState | null = null;
  /**
   * The table this agent run applied last and knows to be in force; "none" when we know there
   * is no table; null when unknown (at start, after a failure, after a change behind our back).
   * Only a known table is the base of an incremental apply.
   */
  private firewall: FirewallModel | "none" | null = null;
  /** Handles of that table's forward rules (from the listing after the apply), or null. */
  private firewallHandles: number[] | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private createdHere = false;
  /** The firewall config last applied and the table's listing right after (for state reports). */
  private firewallConfig: WireFirewallConfig | null = null;
  private firewallListing: string | null = null;
  /** The rule fragments of the last firewall config (firewallModel: unchanged rules are not parsed again). */
  private readonly firewallRules: FirewallModelCache = new Map();
  /** A table was applied and its listing is still to be read (see readFirewallListing). */
  private firewallListingDue = false;
  /** Counters for tests and logs. */
  readonly counters = { fullApplies: 0, peerOps: 0, commandsFailed: 0, firewallFailures: 0, firewallIncremental: 0, firewallWhole: 0, firewallFallbacks: 0 };

  constructor(
    private readonly cfg: GatewayConfig,
    readonly wg: WgDevice,
    private readonly log: Log,
  ) {
    wg.onUnexpectedExit = (why) => {
      this.log("error", `${why}: the interface is gone; it will be brought up again on the next configuration`);
      this.applied = null;
      this.onInterfaceLost?.();
    };
  }

  /** Set by the connection loop: resynchronise (reconnect and fetch Config). */
  onInterfaceLost: (() => void) | null = null;

  get peerCount(): number {
    return this.applied?.peers.size ?? 0;
  }

  get isUp(): boolean {
    return this.applied !== null;
  }

  /** Run fn after everything queued before it. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => {});
    return next;
  }

  applyConfiguration(conf: WireConfiguration): Promise<void> {
    return this.serial(() => this.applyConfigurationNow(conf));
  }

  applyUpdate(u: WireUpdate): Promise<void> {
    return this.serial(() => this.applyUpdateNow(u));
  }

  /** Resolves when everything queued before it was applied (or failed). */
  whenIdle(): Promise<void> {
    return this.serial(async () => {});
  }

  /**
   * The live state for a state report, read after everything queued: the interface's peers with
   * their allowed IPs, and the canonical text of the firewall actually enforced (null when the
   * agent does not manage the firewall). A table that differs from what was applied (changed
   * behind the agent's back) is reported as such and forgotten, so the next configuration
   * applies it again.
   */
  liveState(): Promise<{ peers: PeerAllowedIps[]; firewall: string | null }> {
    return this.serial(async () => {
      const dump = await this.wg.dump();
      const peers = dump.peers.map((p) => ({ pubkey: p.pubkey, allowed_ips: p.allowedIps }));
      if (!this.cfg.firewall) return { peers, firewall: null };
      await this.readFirewallListing();
      const listing = await nftListTable(NFT_FAMILY, firewallTableName(this.wg.ifname), true).catch(() => null);
      const wanted = this.firewall !== null && this.firewall !== "none" ? this.firewallConfig : null;
      if (wanted ? listing === this.firewallListing : listing === null) return { peers, firewall: firewallText(wanted ? canonicalFirewall(wanted) : null) };
      this.firewall = null;
      return { peers, firewall: tamperedFirewallText(listing ?? "") };
    });
  }

  private async bringUp(): Promise<InterfaceState> {
    if (await this.wg.exists()) {
      this.log("info", `interface ${this.wg.ifname} already exists: adopting it (no session is dropped)`);
      return this.wg.readState();
    }
    await runHook("PRE_UP", this.cfg.preUp, this.log, { DEFGUARD_IFNAME: this.wg.ifname });
    await this.wg.create();
    this.createdHere = true;
    this.log("info", `created interface ${this.wg.ifname} (${this.cfg.userspace ? `wireguard-go, pid ${this.wg.pid}` : "kernel"})`);
    return this.wg.readState();
  }

  private async execute(ops: Op[]): Promise<void> {
    if (!ops.length) return;
    try {
      await this.wg.execute(ops);
      this.counters.peerOps += ops.filter(isPeerOp).length;
    } catch (err) {
      this.counters.commandsFailed++;
      // Whatever part ran, the interface knows: re-read it.
      try {
        this.applied = await this.wg.readState();
      } catch {
        this.applied = null;
      }
      throw err;
    }
  }

  private async applyConfigurationNow(conf: WireConfiguration): Promise<void> {
    const t0 = Date.now();
    const desired = desiredState(conf);
    let fresh = false;
    let current: InterfaceState;
    if (this.applied === null) {
      current = await this.bringUp();
      fresh = true;
    } else {
      try {
        current = await this.wg.readState();
      } catch (err) {
        this.log("warn", `cannot read ${this.wg.ifname} (${(err as Error).message}); bringing it up again`);
        this.applied = null;
        current = await this.bringUp();
        fresh = true;
      }
    }
    const tRead = Date.now();
    const ops = diff(current, desired);
    const ifaceOps = ops.filter((o) => !isPeerOp(o));
    const peerOpsList = ops.filter(isPeerOp);
    this.applied = current;
    await this.execute(ifaceOps);
    this.applied = applyOps(this.applied, ifaceOps);
    await this.wg.setUp();
    // The firewall before the peers: compiled rules may span addresses of no peer, so a peer
    // added here must never meet the previous table (see lib/acl/compile.ts).
    const tFw = Date.now();
    await this.applyFirewallNow(conf.firewall_config as WireFirewallConfig | null | undefined);
    const tPeers = Date.now();
    await this.execute(peerOpsList);
    this.applied = applyOps(this.applied, peerOpsList);
    this.counters.fullApplies++;
    const tEnd = Date.now();
    const changed = ops.length ? `${ops.length} change(s): ${ops.length > 12 ? `${describeOps(ops.slice(0, 12))}; …` : describeOps(ops)}` : "no changes";
    const phases = `read ${tRead - t0} ms, interface ${tFw - tRead} ms, firewall ${tPeers - tFw} ms, peers ${tEnd - tPeers} ms`;
    this.log("info", `configuration "${conf.name ?? ""}" applied to ${this.wg.ifname} in ${tEnd - t0} ms (${phases}): ${desired.peers.size} peer(s), ${changed}`);
    if (fresh && this.createdHere) {
      this.createdHere = false;
      await runHook("POST_UP", this.cfg.postUp, this.log, { DEFGUARD_IFNAME: this.wg.ifname });
    }
  }

  private async applyUpdateNow(u: WireUpdate): Promise<void> {
    const kind = u.update ?? (u.network ? "network" : u.peer ? "peer" : u.firewall_config ? "firewall_config" : u.disable_firewall ? "disable_firewall" : undefined);
    switch (kind) {
      case "network":
        if (u.network) await this.applyConfigurationNow(u.network);
        return;
      case "firewall_config":
        await this.applyFirewallNow(u.firewall_config ?? null, true);
        return;
      case "disable_firewall":
        await this.applyFirewallNow(null, true);
        return;
      case "peer": {
        if (!u.peer?.pubkey) return;
        if (this.applied === null) {
          // Not up (the interface was lost): the next full configuration will include this peer.
          this.log("warn", `peer update for ${u.peer.pubkey.slice(0, 8)}… while ${this.wg.ifname} is down: deferred to the next configuration`);
          this.onInterfaceLost?.();
          return;
        }
        const type = u.update_type === 2 || u.update_type === "DELETE" ? "DELETE" : u.update_type === 1 || u.update_type === "MODIFY" ? "MODIFY" : "CREATE";
        const want = type === "DELETE" ? null : normalizePeer(u.peer);
        const ops = peerOps(this.applied.peers.get(u.peer.pubkey.trim()), want);
        if (!ops.length) {
          this.log("debug", `peer ${type} ${u.peer.pubkey.slice(0, 8)}…: already in that state`);
          return;
        }
        const t0 = performance.now();
        await this.execute(ops);
        this.applied = applyOps(this.applied, ops);
        this.log("info", `peer ${type}: ${describeOps(ops)} (${(performance.now() - t0).toFixed(1)} ms)`);
        return;
      }
      default:
        this.log("warn", `ignoring an update without content: ${JSON.stringify(u).slice(0, 200)}`);
    }
  }

  /**
   * `fw` null/undefined: no firewall wanted (delete our table if it may exist).
   * `explicit`: an update asked for this (log at info even when nothing changes).
   */
  private async applyFirewallNow(fw: WireFirewallConfig | null | undefined, explicit = false): Promise<void> {
    if (!this.cfg.firewall) {
      if (explicit) this.log("info", "firewall update ignored: firewall management is disabled (DEFGUARD_DISABLE_FW_MGMT)");
      return;
    }
    const table = firewallTableName(this.wg.ifname);
    if (!fw) {
      if (this.firewall === "none") return;
      try {
        const existed = await nftDeleteTable(NFT_FAMILY, table);
        if (existed || explicit) this.log("info", `firewall disabled: table ${NFT_FAMILY} ${table} ${existed ? "deleted" : "was not there"}`);
        this.firewall = "none";
        this.firewallConfig = null;
        this.firewallListing = null;
        this.firewallListingDue = false;
      } catch (err) {
        // No nft on a host that never needs a firewall is fine; log once.
        this.log(explicit || this.firewall !== null ? "warn" : "debug", `could not delete nft table ${table}: ${(err as Error).message}`);
        this.firewall = "none";
      }
      return;
    }
    const { model, skipped } = firewallModel(this.wg.ifname, fw, this.firewallRules);
    for (const s of skipped) this.log("warn", `firewall: left out ${s}`);
    const prev = this.firewall !== null && this.firewall !== "none" ? this.firewall : null;
    if (prev && sameFirewall(prev, model)) {
      this.firewallConfig = fw;
      return;
    }
    // Updates in quick succession: the previous table's handles are needed now.
    if (prev) await this.readFirewallListing();
    const t0 = performance.now();
    const incremental = prev ? incrementalScript(prev, model, this.firewallHandles) : null;
    let how = "whole table";
    try {
      if (incremental !== null) {
        try {
          await nftApply(incremental);
          how = `incremental, ${incremental.length} bytes`;
          this.counters.firewallIncremental++;
        } catch (err) {
          // Atomic too: nothing of it took effect. The table is not what we think (changed
          // behind our back?): replace it as a whole.
          this.counters.firewallFallbacks++;
          this.log("warn", `incremental firewall update failed (${(err as Error).message.split("\n")[0]}); replacing the whole table ${NFT_FAMILY} ${table}`);
          await nftApply(fullScript(model));
          this.counters.firewallWhole++;
        }
      } else {
        await nftApply(fullScript(model));
        this.counters.firewallWhole++;
      }
    } catch (err) {
      // `nft -f` is one transaction: on failure the kernel still has the previous table (or
      // none). Keep it, say so, and stay connected: a resynchronisation would only fail the
      // same way. The next firewall update or configuration tries again.
      this.counters.firewallFailures++;
      const kept = this.firewall === null || this.firewall === "none" ? "no table was applied before" : "the last good table stays in force";
      this.log("error", `firewall update failed, ${kept} (table ${NFT_FAMILY} ${table}): ${(err as Error).message}`);
      return;
    }
    const ms = performance.now() - t0;
    this.firewall = model;
    this.firewallConfig = fw;
    // The listing of the new table (with rule handles) is what state reports compare with, and
    // the handles let the next update replace single rules. Listing a large table takes longer
    // than changing it (bench: acl), so it is read after what is queued now (the peers of a
    // configuration, the acknowledgement of this revision), not before.
    this.firewallListing = null;
    this.firewallHandles = null;
    this.firewallListingDue = true;
    void this.serial(() => this.readFirewallListing());
    this.log(
      "info",
      `firewall applied (${how}, ${ms.toFixed(0)} ms): table ${NFT_FAMILY} ${table}, ${fw.rules?.length ?? 0} rule(s), ${fw.snat_bindings?.length ?? 0} SNAT binding(s), default ${fw.default_policy === "DENY" || fw.default_policy === 1 ? "deny" : "allow"}`,
    );
  }

  /**
   * Read the listing of the table applied last, when not read yet: before a state report
   * compares with it, before the next incremental update needs its handles, else as soon as
   * the queue reaches it. Runs inside the serial queue only.
   */
  private async readFirewallListing(): Promise<void> {
    if (!this.firewallListingDue) return;
    this.firewallListingDue = false;
    const model = this.firewall !== null && this.firewall !== "none" ? this.firewall : null;
    if (!model) return;
    this.firewallListing = await nftListTable(NFT_FAMILY, model.table, true).catch(() => null);
    this.firewallHandles = forwardHandles(this.firewallListing, model);
  }

  /**
   * The agent is exiting. By default the interface, wireguard-go and the firewall table stay
   * as they are, so tunnels keep carrying traffic (filtered as before) until the next agent
   * adopts them. With `teardown` (DEFGUARD_TEARDOWN_ON_EXIT=1): PRE_DOWN, firewall table and
   * interface removed, POST_DOWN.
   */
  shutdown(teardown = this.cfg.teardownOnExit): Promise<void> {
    return this.serial(async () => {
      if (!teardown) {
        this.wg.onUnexpectedExit = null;
        this.wg.release();
        const fw = this.cfg.firewall && this.firewall !== null && this.firewall !== "none";
        this.log("info", `interface ${this.wg.ifname}${fw ? " and its firewall table" : ""} left up for the next agent (DEFGUARD_TEARDOWN_ON_EXIT=1 removes them)`);
        return;
      }
      await runHook("PRE_DOWN", this.cfg.preDown, this.log, { DEFGUARD_IFNAME: this.wg.ifname });
      if (this.cfg.firewall && this.firewall !== null && this.firewall !== "none") {
        await nftDeleteTable(NFT_FAMILY, firewallTableName(this.wg.ifname)).catch((err) => this.log("warn", `deleting the firewall table: ${(err as Error).message}`));
      }
      this.wg.onUnexpectedExit = null;
      await this.wg.destroy();
      this.applied = null;
      this.log("info", `interface ${this.wg.ifname} removed`);
      await runHook("POST_DOWN", this.cfg.postDown, this.log, { DEFGUARD_IFNAME: this.wg.ifname });
    });
  }
}
