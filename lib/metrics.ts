import "server-only";
import { timingSafeEqual as cryptoEqual } from "node:crypto";
import client from "prom-client";

/**
 * Prometheus metrics (GET /metrics). One registry per process, kept on globalThis: server.ts
 * and the route bundles Next.js compiles are separate module graphs that must count into the
 * same series. Gauges that describe the cluster (gateways, peers) are read from the database
 * when scraped, so every console process answers the same.
 */
export interface Metrics {
  registry: client.Registry;
  httpRequests: client.Counter<"method" | "route" | "status">;
  httpDuration: client.Histogram<"method" | "route" | "status">;
  signIns: client.Counter<"result">;
  lockouts: client.Counter;
  propagation: client.Histogram;
  ackPropagation: client.Histogram;
  statsSamples: client.Counter;
  jobRuns: client.Counter<"job">;
  jobFailures: client.Counter<"job">;
}

/** Reads the database-backed gauges (registered by server.ts, which owns the pool). */
export interface MetricsSources {
  gatewaysPerLocation(): Promise<{ location: string; connected: number }[]>;
  peersPerLocation(): Promise<{ location: string; peers: number }[]>;
  pool(): { total: number; idle: number; waiting: number; max: number } | null;
}

const g = globalThis as unknown as { __defguardMetrics?: Metrics; __defguardMetricsSources?: MetricsSources };

function create(): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry, prefix: "defguard_" });
  const sources = () => g.__defguardMetricsSources;
  new client.Gauge({
    name: "defguard_gateways_connected",
    help: "Gateways connected (to any console process), per location",
    labelNames: ["location"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of (await sources()?.gatewaysPerLocation().catch(() => [])) ?? []) this.set({ location: r.location }, r.connected);
    },
  });
  new client.Gauge({
    name: "defguard_peers",
    help: "WireGuard peers (device-location assignments), per location",
    labelNames: ["location"],
    registers: [registry],
    async collect() {
      this.reset();
      for (const r of (await sources()?.peersPerLocation().catch(() => [])) ?? []) this.set({ location: r.location }, r.peers);
    },
  });
  const pool = (key: "total" | "idle" | "waiting" | "max", name: string, help: string) =>
    new client.Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        const p = sources()?.pool();
        if (p) this.set(p[key]);
      },
    });
  pool("total", "defguard_db_pool_connections", "Open connections in the database pool");
  pool("idle", "defguard_db_pool_idle_connections", "Idle connections in the database pool");
  pool("waiting", "defguard_db_pool_waiting_requests", "Queries waiting for a database connection");
  pool("max", "defguard_db_pool_max_connections", "Size limit of the database pool");
  return {
    registry,
    httpRequests: new client.Counter({
      name: "defguard_http_requests_total",
      help: "HTTP requests by route pattern, method and status",
      labelNames: ["method", "route", "status"],
      registers: [registry],
    }),
    httpDuration: new client.Histogram({
      name: "defguard_http_request_duration_seconds",
      help: "HTTP request latency by route pattern, method and status",
      labelNames: ["method", "route", "status"],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    signIns: new client.Counter({
      name: "defguard_sign_ins_total",
      help: "Password sign-in attempts by result (success, mfa_required, failure, locked, disabled)",
      labelNames: ["result"],
      registers: [registry],
    }),
    lockouts: new client.Counter({
      name: "defguard_sign_in_lockouts_total",
      help: "Sign-in attempts refused because the account, the address or the pair is blocked",
      registers: [registry],
    }),
    propagation: new client.Histogram({
      name: "defguard_gateway_propagation_seconds",
      help: "From the commit of a change to its update being written to a gateway stream",
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    ackPropagation: new client.Histogram({
      name: "defguard_gateway_ack_propagation_seconds",
      help: "From the commit of a change to a gateway's acknowledgement that it applied it (peers and firewall), per change and gateway",
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers: [registry],
    }),
    statsSamples: new client.Counter({
      name: "defguard_stats_samples_ingested_total",
      help: "Peer statistics samples received from gateways and stored (rate() gives the ingest rate)",
      registers: [registry],
    }),
    jobRuns: new client.Counter({
      name: "defguard_job_runs_total",
      help: "Periodic job runs performed by this process (a tick another process took is not counted)",
      labelNames: ["job"],
      registers: [registry],
    }),
    jobFailures: new client.Counter({
      name: "defguard_job_failures_total",
      help: "Periodic job runs that failed",
      labelNames: ["job"],
      registers: [registry],
    }),
  };
}

export function metrics(): Metrics {
  return (g.__defguardMetrics ??= create());
}

export function registerMetricsSources(s: MetricsSources): void {
  g.__defguardMetricsSources = s;
}

/**
 * Whether a scrape may read the metrics: without DEFGUARD_METRICS_TOKEN anyone may; with it, the
 * request must carry `Authorization: Bearer <token>` (compared in constant time).
 */
export function metricsAuthorized(authorization: string | undefined | null, token = process.env.DEFGUARD_METRICS_TOKEN): boolean {
  if (!token) return true;
  const m = /^Bearer\s+(.+)$/i.exec(authorization ?? "");
  if (!m) return false;
  const a = Buffer.from(m[1].trim());
  const b = Buffer.from(token);
  return a.length === b.length && cryptoEqual(a, b);
}


/**
 * Route patterns for the `route` label: request paths are mapped to their app/api folder
 * pattern (`/api/v1/user/{username}`), so usernames and ids never become label values.
 */
export class RouteMatcher {
  private readonly patterns: { re: RegExp; label: string; weight: number }[];
  constructor(routes: string[]) {
    this.patterns = routes
      .map((r) => {
        const segs = r.split("/").filter(Boolean);
        const label = "/" + segs.map((s) => s.replace(/^\[\[?\.{3}(.+?)\]?\]$/, "{$1*}").replace(/^\[(.+)\]$/, "{$1}")).join("/");
        const re = new RegExp(
          "^/" +
            segs
              .map((s) => (/^\[\[?\.{3}/.test(s) ? ".+" : /^\[.+\]$/.test(s) ? "[^/]+" : s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
              .join("/") +
            "/?$",
        );
        // Static segments win over dynamic ones (Next.js does the same).
        const weight = segs.reduce((w, s) => w * 4 + (/^\[\[?\.{3}/.test(s) ? 0 : /^\[/.test(s) ? 1 : 3), 0) + segs.length * 1e12;
        return { re, label, weight };
      })
      .sort((a, b) => b.weight - a.weight);
  }

  label(path: string): string {
    const p = path.split("?")[0];
    if (p === "/metrics") return "/metrics";
    if (p.startsWith("/_next/")) return "/_next";
    for (const x of this.patterns) if (x.re.test(p)) return x.label;
    return p.startsWith("/api/") ? "/api/(unknown)" : "(page)";
  }
}

/** The route folders under `<appDir>/api` (each folder holding a route.ts or route.js). */
export async function apiRoutes(appDir: string): Promise<string[]> {
  const { readdirSync, existsSync } = await import("node:fs");
  const { join } = await import("node:path");
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name), `${rel}/${e.name}`);
      else if (/^route\.(ts|js)$/.test(e.name)) out.push(rel);
    }
  };
  walk(join(appDir, "api"), "/api");
  return out;
}
