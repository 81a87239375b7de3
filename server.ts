/**
 * The single entry point: resolves configuration and secrets, starts the
 * embedded PostgreSQL when DATABASE_URL is unset, migrates, bootstraps the first admin,
 * and serves Next.js (pages + /api/v1) on PORT.
 */
import { createServer, type IncomingMessage } from "node:http";
import { join } from "node:path";
import next from "next";
import { dataDir, httpPort } from "./lib/config";
import { resolveSecrets } from "./lib/secrets-file";
import { startEmbeddedPostgres, type EmbeddedDb } from "./lib/db/embedded";
import { runMigrations } from "./lib/db/migrate";
import { closeDb } from "./lib/db";
import { bootstrap } from "./lib/bootstrap";
import { grpcPort } from "./lib/config";
import { startGrpcServer, PROCESS_ID, type GrpcServerHandle } from "./lib/grpc/server";
import { startHub, stopHub } from "./lib/gateways/hub";
import { resetStaleConnections } from "./lib/gateways/service";
import { startJobs } from "./lib/jobs/runner";

process.env.NEXT_TELEMETRY_DISABLED = "1";
const dev = process.argv.includes("--dev");
const log = (m: string) => console.log(`[defguard] ${m}`);

function clientIp(req: IncomingMessage): string {
  // Behind a reverse proxy the operator opts in to X-Forwarded-For.
  if (process.env.DEFGUARD_TRUST_PROXY === "1") {
    const fwd = req.headers["x-forwarded-for"];
    const first = (Array.isArray(fwd) ? fwd[0] : fwd)?.split(",")[0]?.trim();
    if (first) return first;
  }
  return (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
}

async function main() {
  const t0 = Date.now();
  const secrets = resolveSecrets();
  let embedded: EmbeddedDb | null = null;
  if (!process.env.DATABASE_URL) {
    const dir = join(dataDir(), "postgres");
    embedded = await startEmbeddedPostgres(dir, secrets.embeddedDbPassword!, {
      port: process.env.DEFGUARD_EMBEDDED_DB_PORT ? Number(process.env.DEFGUARD_EMBEDDED_DB_PORT) : undefined,
    });
    process.env.DATABASE_URL = embedded.url;
    log(`embedded PostgreSQL running from ${dir} on 127.0.0.1:${embedded.port}`);
  }
  await runMigrations(process.env.DATABASE_URL!);
  const boot = await bootstrap();
  if (boot.generatedPassword) {
    const line = "=".repeat(64);
    console.log(
      `\n${line}\n First start: created user "admin" with the generated password:\n\n     ${boot.generatedPassword}\n\n It is shown only this once. Sign in and change it.\n${line}\n`,
    );
  } else if (boot.createdAdmin) {
    log('first start: created user "admin" with DEFGUARD_DEFAULT_ADMIN_PASSWORD');
  }

  // Gateways: committed changes from every console process arrive by NOTIFY; the gRPC server
  // serves Config/Updates/Stats on DEFGUARD_GRPC_PORT.
  await startHub();
  await resetStaleConnections(PROCESS_ID);
  let grpc: GrpcServerHandle | null = null;
  if (process.env.DEFGUARD_GRPC_DISABLED !== "1") {
    const grpcHost = process.env.DEFGUARD_GRPC_HOST || "0.0.0.0";
    try {
      grpc = await startGrpcServer(grpcHost, grpcPort());
      log(`gRPC (gateways, workers) listening on ${grpcHost}:${grpc.port}`);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      // A port the operator chose must work; the default port may be taken on a shared machine.
      if (process.env.DEFGUARD_GRPC_PORT) throw new Error(`gRPC cannot listen on ${grpcHost}:${grpcPort()}: ${reason}`);
      console.error(`[defguard] WARNING: gRPC cannot listen on ${grpcHost}:${grpcPort()} (${reason}); gateways cannot connect. Set DEFGUARD_GRPC_PORT.`);
    }
  }

  const stopJobs = startJobs();

  const port = httpPort();
  const host = process.env.HOST || "0.0.0.0";
  const app = next({ dev, dir: process.cwd(), hostname: "localhost", port });
  await app.prepare();
  const handle = app.getRequestHandler();
  const server = createServer((req, res) => {
    req.headers["x-defguard-client-ip"] = clientIp(req);
    handle(req, res).catch((err) => {
      console.error("[defguard] unhandled request error", err);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.on("error", async (err) => {
    console.error(`[defguard] cannot serve on ${host}:${port}: ${err.message}`);
    await grpc?.stop().catch(() => {});
    await closeDb().catch(() => {});
    if (embedded) await embedded.stop().catch(() => {});
    process.exit(1);
  });
  server.listen(port, host, () => log(`console listening on http://localhost:${port} (ready in ${Date.now() - t0} ms)`));

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    server.close();
    server.closeAllConnections?.();
    stopJobs();
    // End the gateways' update streams first, so gRPC can shut down without waiting on them.
    await stopHub().catch(() => {});
    await grpc?.stop().catch(() => {});
    await closeDb().catch(() => {});
    if (embedded) await embedded.stop().catch((e) => console.error("[defguard] stopping PostgreSQL:", e));
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}

main().catch((err) => {
  console.error("[defguard] start-up failed:", err instanceof Error ? err.message : err);
  process.exit(1);
});
