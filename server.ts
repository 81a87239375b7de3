/**
 * The single entry point: resolves configuration and secrets, starts the
 * embedded PostgreSQL when DATABASE_URL is unset, migrates, bootstraps the first admin,
 * and serves Next.js (pages + /api/v1) on PORT.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { NextServer } from "next/dist/server/next";
import { dataDir, httpPort, publicUrl } from "./lib/config";
import { resolveSecrets, SecretsError, strictSecrets } from "./lib/secrets-file";
import { startEmbeddedPostgres, EmbeddedDbError, type EmbeddedDb } from "./lib/db/embedded";
import { runMigrations } from "./lib/db/migrate";
import { registerEmbeddedDb, setGatewaySideStarting } from "./lib/health/service";
import { isInitialized } from "./lib/db/initialized";
import { grpcHost, grpcPort } from "./lib/config";
import type { GrpcServerHandle } from "./lib/grpc/server";
import { clientAddress } from "./lib/http/client-ip";
import { hasMalformedEscape, malformedPathAnswer, newNonce, securityHeaders } from "./lib/http/security-headers";
import { installLogCapture, installLogFormat, withRequestId } from "./lib/logging";
import { observeRequest, routeMatcher, serveMetrics } from "./lib/http/observe";
import { StartupError, waitForDatabase } from "./lib/db/wait";
import { drainHttp, shutdownTimeoutMs, trackInflight } from "./lib/http/drain";
import { startIdleGc } from "./lib/http/idle-gc";
import { mayBeOidcPath } from "./lib/oidc/paths";

// Loaded when first needed, not at start-up (scripts/build-server.mjs puts them in chunks of
// their own): the gateway side (gRPC, the hub, the jobs and all they import) once the console
// answers, the OpenID provider's handler on the first request for one of its paths.
// Drizzle and the schema are not on the start-up path either (the route handlers Next.js loads
// have their own copy); the pool is shared through globalThis (lib/db).
const loadGatewaySide = () =>
  Promise.all([
    import("./lib/grpc/server"),
    import("./lib/gateways/hub"),
    import("./lib/gateways/service"),
    import("./lib/jobs/runner"),
    import("./lib/db/metrics"),
  ]).then(([grpcServer, hub, gateways, jobs, dbMetrics]) => ({ grpcServer, hub, gateways, jobs, dbMetrics }));
const closeDb = () => import("./lib/db").then((m) => m.closeDb());
let oidcHttp: Promise<typeof import("./lib/oidc/http")> | null = null;

process.env.NEXT_TELEMETRY_DISABLED = "1";
// DEFGUARD_STARTUP_TRACE=1: one line per start-up and shutdown step, in ms since the process
// started (performance.now()), with the process's CPU time so far, to see where a restart goes.
const tracing = process.env.DEFGUARD_STARTUP_TRACE === "1";
const trace = (step: string) => {
  if (!tracing) return;
  const cpu = process.cpuUsage();
  console.log(`[startup] ${performance.now().toFixed(0).padStart(5)} ms (cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms) ${step}`);
};
trace("modules loaded");
installLogFormat();
// The last 1,000 lines are kept in memory for the support bundle (GET /support/logs).
installLogCapture();
const dev = process.argv.includes("--dev");
const log = (m: string) => console.log(`[defguard] ${m}`);

function clientIp(req: IncomingMessage): string {
  // Behind a reverse proxy the operator opts in to X-Forwarded-For (DEFGUARD_TRUST_PROXY).
  return clientAddress(req.headers["x-forwarded-for"], req.socket.remoteAddress);
}

/**
 * In production Next.js takes its configuration from the build (required-server-files.json,
 * written by `next build` with every default applied), as the standalone server Next.js
 * generates does, instead of compiling and running next.config.ts again at every start. Only
 * what next.config.ts reads from the environment at run time is applied on top.
 */
function useBuiltNextConfig(distDir: string): void {
  let config: { experimental?: Record<string, unknown> };
  try {
    config = (JSON.parse(readFileSync(join(process.cwd(), distDir, "required-server-files.json"), "utf8")) as { config: typeof config }).config;
  } catch {
    return; // no build yet, or an older one: Next.js loads next.config.ts itself (and reports what is missing)
  }
  config.experimental = { ...config.experimental, preloadEntriesOnStart: process.env.DEFGUARD_PRELOAD_ENTRIES === "1" };
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(config);
}

/** At the latest this long after the console listens, its gateway side starts (see main). */
const GATEWAY_SIDE_DELAY_MS = 500;

async function main() {
  const t0 = Date.now();
  // Where start-up time goes, for the "ready" line (restart-to-API is an operator target).
  const phases: string[] = [];
  let mark = t0;
  const phase = (name: string) => {
    const now = Date.now();
    phases.push(`${name} ${now - mark}`);
    mark = now;
  };
  const secrets = (() => {
    try {
      return resolveSecrets(dataDir(), { strict: strictSecrets() });
    } catch (err) {
      if (err instanceof SecretsError) throw new StartupError(err.message);
      const e = err as NodeJS.ErrnoException;
      if (!e.code || !e.syscall) throw err;
      throw new StartupError(`the data directory ${dataDir()} is not usable (${e.code} on ${e.syscall}${e.path ? ` ${e.path}` : ""}); set DEFGUARD_DATA_DIR to a writable directory`);
    }
  })();
  trace("secrets resolved");
  // The web app (loading Next.js and preparing it) does not need the database: it is prepared
  // while the database is started (embedded) or migrated, bootstrapped and the gateways' side
  // is set up (external, once it answers: start-up errors about the database come first, and
  // Next.js's synchronous loading never delays the waiting's retries), so a restart spends the
  // database's round trips and Next.js's loading at the same time.
  const port = httpPort();
  let web: Promise<{ handle: ReturnType<NextServer["getRequestHandler"]>; matcher: Awaited<ReturnType<typeof routeMatcher>> }> | null = null;
  const startWeb = () => {
    web = (async () => {
      trace("web: loading Next.js");
      if (!dev) useBuiltNextConfig(process.env.NEXT_DIST_DIR || ".next");
      const { default: next } = await import("next");
      trace("web: Next.js loaded");
      const app = next({ dev, dir: process.cwd(), hostname: "localhost", port });
      await app.prepare();
      trace("web: Next.js prepared");
      const matcher = await routeMatcher(process.cwd(), process.env.NEXT_DIST_DIR || ".next");
      trace("web: route matcher ready");
      return { handle: app.getRequestHandler(), matcher };
    })();
    // A failure is reported where it is awaited (below), not as an unhandled rejection meanwhile.
    web.catch(() => {});
  };
  let embedded: EmbeddedDb | null = null;
  if (!process.env.DATABASE_URL) {
    startWeb();
    const dir = join(dataDir(), "postgres");
    embedded = await startEmbeddedPostgres(dir, secrets.embeddedDbPassword!, {
      port: process.env.DEFGUARD_EMBEDDED_DB_PORT ? Number(process.env.DEFGUARD_EMBEDDED_DB_PORT) : undefined,
      log,
    });
    embeddedForExit = embedded;
    registerEmbeddedDb(embedded);
    process.env.DATABASE_URL = embedded.url;
    const where = embedded.dir === dir ? dir : `${embedded.dir} (linked from ${dir})`;
    log(`embedded PostgreSQL running from ${where} on 127.0.0.1:${embedded.port} (PID ${embedded.pid()})`);
  } else {
    // An external database (DATABASE_URL): never an embedded one; wait while it is unreachable.
    await waitForDatabase(process.env.DATABASE_URL, { log });
    startWeb();
  }
  phase("database");
  trace("database reachable");
  await runMigrations(process.env.DATABASE_URL!);
  trace("migrations checked");
  // The bootstrap's modules are loaded only for a database that has not been bootstrapped.
  const boot = (await isInitialized(process.env.DATABASE_URL!)) ? { createdAdmin: false, generatedPassword: null } : await (await import("./lib/bootstrap")).bootstrap();
  trace("bootstrap checked");
  phase("migrations");
  if (boot.generatedPassword) {
    const line = "=".repeat(64);
    console.log(
      `\n${line}\n First start: created user "admin" with the generated password:\n\n     ${boot.generatedPassword}\n\n It is shown only this once. Sign in and change it.\n${line}\n`,
    );
  } else if (boot.createdAdmin) {
    log('first start: created user "admin" with DEFGUARD_DEFAULT_ADMIN_PASSWORD');
  }

  const host = process.env.HOST || "0.0.0.0";
  const { handle, matcher } = await web!;
  phase("web app");
  trace("web app ready");
  let stopping = false;
  let firstRequest = true;
  // Resolved when the gateway side may start (below).
  let releaseGatewaySide = () => {};
  const gatewaySideMayStart = new Promise<void>((r) => (releaseGatewaySide = r));
  const server = createServer((req, res) => {
    if (firstRequest) {
      firstRequest = false;
      trace(`first request: ${req.method} ${req.url}`);
      res.once("close", () => {
        trace(`first request answered: ${res.statusCode}`);
        releaseGatewaySide();
      });
    }
    const requestId = observeRequest(req, res, matcher);
    // While shutting down, requests still arriving on open connections are served, then the connection closes.
    if (stopping) res.setHeader("connection", "close");
    if (serveMetrics(req, res)) return;
    withRequestId(requestId, () => serve(req, res));
  });
  trackInflight(server);
  const stopIdleGc = startIdleGc(server);
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    req.headers["x-defguard-client-ip"] = clientIp(req);
    const security = securityHeaders(newNonce(), { publicUrl: publicUrl(), dev });
    for (const [k, v] of Object.entries(security)) res.setHeader(k, v);
    // Next.js reads the nonce from the request's policy and puts it on the scripts it inlines.
    req.headers["content-security-policy"] = security["content-security-policy"];
    delete req.headers["content-security-policy-report-only"];
    // Next.js answers a path it cannot decode with a plain-text 500.
    if (hasMalformedEscape(req.url ?? "/")) {
      const bad = malformedPathAnswer(req.url ?? "/");
      res.writeHead(bad.status, { "content-type": bad.contentType, "cache-control": "no-store" }).end(bad.body);
      return;
    }
    // The OpenID provider (discovery, /api/v1/oauth/authorize|token|userinfo|…) is served
    // outside Next.js; handleOidc leaves every other path to it.
    const url = req.url ?? "/";
    (mayBeOidcPath(url) ? (oidcHttp ??= import("./lib/oidc/http")).then((m) => m.handleOidc(req, res)) : Promise.resolve(false))
      .then((done) => (done ? undefined : handle(req, res)))
      .catch((err) => {
        console.error("[defguard] unhandled request error", err);
        if (!res.headersSent) res.writeHead(500).end();
      });
  };
  server.on("error", async (err) => {
    console.error(`[defguard] cannot serve on ${host}:${port}: ${err.message}`);
    await grpc?.stop().catch(() => {});
    await closeDb().catch(() => {});
    if (embedded) await embedded.stop().catch(() => {});
    process.exit(1);
  });
  // The gateway side starts once the console has answered its first request (or half a second
  // after it listens, whichever is first): gateways (and jobs) wait a moment longer on a
  // restart, API clients do not, and loading its modules does not compete with the first
  // request (which has Next.js load the route's modules). Committed changes from every console process arrive by
  // NOTIFY; the gRPC server serves Config/Updates/Stats on DEFGUARD_GRPC_PORT. Its failures end
  // the process as start-up failures do (main's catch).
  let grpc: GrpcServerHandle | null = null;
  let stopJobs: () => void = () => {};
  let side: Awaited<ReturnType<typeof loadGatewaySide>> | null = null;
  setGatewaySideStarting(true);
  const startGatewaySide = async () => {
    const g0 = Date.now();
    const loaded = await loadGatewaySide();
    side = loaded;
    loaded.dbMetrics.registerDbMetrics();
    const { startGrpcServer, grpcTls, PROCESS_ID } = loaded.grpcServer;
    await loaded.hub.startHub();
    await loaded.gateways.resetStaleConnections(PROCESS_ID);
    if (process.env.DEFGUARD_GRPC_DISABLED !== "1") {
      const host = grpcHost();
      try {
        grpc = await startGrpcServer(host, grpcPort());
        log(`gRPC (gateways, workers) listening on ${host}:${grpc.port} (${grpcTls() ? "TLS" : "plain text, no TLS"})`);
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        // A port the operator chose (or a TLS setup) must work; the default port may be taken on a shared machine.
        if (process.env.DEFGUARD_GRPC_PORT || grpcTls()) throw new StartupError(`gRPC cannot listen on ${host}:${grpcPort()}: ${reason}`);
        console.error(`[defguard] WARNING: gRPC cannot listen on ${host}:${grpcPort()} (${reason}); gateways cannot connect. Set DEFGUARD_GRPC_PORT.`);
      }
    }
    if (!stopping) stopJobs = loaded.jobs.startJobs();
    setGatewaySideStarting(false);
    log(`gateway side and jobs started in ${Date.now() - g0} ms`);
    trace("gateway side started");
  };
  await new Promise<void>((resolve) =>
    server.listen(port, host, () => {
      trace("listening");
      log(`console listening on http://localhost:${port} (ready in ${Date.now() - t0} ms: ${phases.join(", ")} ms)`);
      resolve();
    }),
  );
  setTimeout(releaseGatewaySide, GATEWAY_SIDE_DELAY_MS).unref();
  // Not started at all when the process is stopped before (stop releases it).
  const gatewaySide = gatewaySideMayStart.then(() => (stopping ? undefined : startGatewaySide()));

  // Graceful shutdown: stop accepting, let in-flight requests finish (DEFGUARD_SHUTDOWN_TIMEOUT),
  // end the gateways' update streams (they reconnect, through a load balancer to another
  // console), record their disconnects, and only then close the database.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    trace(`${signal} received`);
    const budget = shutdownTimeoutMs();
    log(`${signal}: shutting down (finishing requests in flight, up to ${budget / 1000} s)`);
    const force = setTimeout(() => {
      console.error("[defguard] shutdown took too long; exiting");
      process.exit(1);
    }, budget + 10_000);
    force.unref();
    // A gateway side still starting finishes first, so its parts are stopped below.
    releaseGatewaySide();
    await gatewaySide.catch(() => {});
    stopJobs();
    stopIdleGc();
    const unfinished = await drainHttp(server, budget);
    trace("stop: HTTP drained");
    if (unfinished) log(`closed ${unfinished} connection(s) with requests still running after ${budget / 1000} s`);
    await side?.hub.stopHub().catch(() => {});
    trace("stop: hub stopped");
    await grpc?.stop().catch(() => {});
    trace("stop: gRPC stopped");
    await side?.grpcServer.settleStreamWrites(5000);
    trace("stop: stream writes settled");
    await closeDb().catch(() => {});
    trace("stop: database pool closed");
    if (embedded) await embedded.stop().catch((e) => console.error("[defguard] stopping PostgreSQL:", e));
    trace("stop: exiting");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
  await gatewaySide;
}

let embeddedForExit: EmbeddedDb | null = null;
main().catch(async (err) => {
  // One sentence for the operator: our own start-up errors already are one; anything else
  // is shown with its message (never "undefined").
  const msg = err instanceof Error ? err.message || err.name : String(err);
  console.error(`[defguard] start-up failed: ${msg}`);
  if (!(err instanceof EmbeddedDbError) && !(err instanceof StartupError) && err instanceof Error && err.stack) console.error(err.stack);
  await embeddedForExit?.stop().catch(() => {});
  process.exit(1);
});
