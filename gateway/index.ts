/**
 * The VPN gateway agent (`npm run gateway`, which runs `gateway/index.ts` under tsx): a
 * defguard-compatible gateway that keeps one WireGuard interface (kernel or wireguard-go)
 * and its nftables table in step with a console over gRPC. Configured by environment
 * variables, like defguard's gateway (gateway/config.ts lists them).
 *
 * Exit: SIGINT/SIGTERM → the interface, wireguard-go and the firewall table are left running
 * (a restarted or upgraded agent adopts them, so no tunnel notices), exit 0. With
 * DEFGUARD_TEARDOWN_ON_EXIT=1: PRE_DOWN, firewall table and interface removed (our
 * wireguard-go stopped by PID), POST_DOWN, exit 0. A second signal exits at once.
 */
import { createServer, type Server } from "node:http";
import { GatewayClient } from "./client";
import { ConfigError, loadConfig } from "./config";
import { InterfaceManager } from "./manager";
import { WgInterface, type Log } from "./wg";

const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;

function makeLog(): Log {
  const min = LEVELS[(process.env.DEFGUARD_LOG_LEVEL ?? "info").toLowerCase() as keyof typeof LEVELS] ?? LEVELS.info;
  return (level, msg) => {
    if (LEVELS[level] < min) return;
    const line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} [gateway] ${msg}\n`;
    (level === "error" || level === "warn" ? process.stderr : process.stdout).write(line);
  };
}

function startHealth(port: number, isAlive: () => boolean, log: Log): Server {
  const server = createServer((req, res) => {
    const alive = isAlive();
    res.writeHead(alive ? 200 : 503, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
    res.end(alive ? "alive" : "not connected");
  });
  server.on("error", (err) => log("error", `health endpoint on port ${port}: ${err.message}`));
  server.listen(port, () => log("info", `health endpoint on :${port} (200 "alive" while connected to the console, 503 otherwise)`));
  return server;
}

async function main(): Promise<void> {
  const log = makeLog();
  let cfg;
  try {
    cfg = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      log("error", err.message);
      process.exit(2);
    }
    throw err;
  }
  log(
    "info",
    `starting: interface ${cfg.ifname} (${cfg.userspace ? "wireguard-go" : "kernel"}), console ${cfg.grpcUrl}, hostname "${cfg.hostname}", stats every ${cfg.statsPeriod} s`,
  );
  const wg = new WgInterface({ ifname: cfg.ifname, userspace: cfg.userspace, wireguardGo: cfg.wireguardGo, log });
  const manager = new InterfaceManager(cfg, wg, log);
  const client = new GatewayClient(cfg, manager, log);
  let stopping = false;
  const health = cfg.healthPort ? startHealth(cfg.healthPort, () => client.connected && !stopping, log) : null;

  const shutdown = async (signal: string) => {
    if (stopping) {
      log("warn", `${signal} again: exiting at once`);
      process.exit(1);
    }
    stopping = true;
    log("info", `${signal}: shutting down`);
    const force = setTimeout(() => {
      log("error", "shutdown took longer than 15 s; exiting");
      process.exit(1);
    }, 15_000);
    force.unref();
    client.stop();
    try {
      await manager.shutdown();
    } catch (err) {
      log("error", `shutdown: ${(err as Error).message}`);
    }
    wg.dispose();
    health?.close();
    log("info", "stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("unhandledRejection", (err) => log("error", `unhandled rejection: ${err instanceof Error ? err.stack : String(err)}`));

  await client.run();
}

main().catch((err) => {
  process.stderr.write(`[gateway] fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
