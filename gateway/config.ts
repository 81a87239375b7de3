/**
 * The agent's settings, from the environment, named like defguard's gateway (DEFGUARD_*).
 * Pure: `loadConfig(env)` validates and returns a frozen object or throws ConfigError with
 * every problem listed, so a misconfigured agent stops at once with one clear message.
 */
import { readFileSync } from "node:fs";
import { hostname as osHostname } from "node:os";

export interface GatewayConfig {
  /** Raw JWT from GET /api/v1/network/{id}/token. */
  token: string;
  /** What the gRPC client dials: "host:port" (IPv6 hosts in brackets). */
  grpcTarget: string;
  /** true for https:// URLs (TLS), false for h2c. */
  tls: boolean;
  /** PEM of the CA to trust instead of the system's roots (DEFGUARD_GRPC_CA, a file path). */
  ca: Buffer | null;
  /** The URL as given, for logs. */
  grpcUrl: string;
  ifname: string;
  /** Run wireguard-go instead of the kernel module. */
  userspace: boolean;
  /** wireguard-go binary (DEFGUARD_WIREGUARD_GO, default "wireguard-go" from PATH). */
  wireguardGo: string;
  /** Seconds between peer statistics reads. */
  statsPeriod: number;
  /** Seconds of silence on the stats stream after which an `empty` keep-alive is sent. */
  statsKeepalive: number;
  /** Seconds between state reports (digest of the live peers and firewall table) to the console. */
  reportPeriod: number;
  preUp: string | null;
  postUp: string | null;
  preDown: string | null;
  postDown: string | null;
  healthPort: number | null;
  /** Display name sent in ConfigurationRequest. */
  name: string | null;
  /** Sent as `hostname` metadata: identifies this gateway to the console. */
  hostname: string;
  /** Apply firewall configs with nftables (DEFGUARD_DISABLE_FW_MGMT=1 turns it off). */
  firewall: boolean;
  /**
   * Remove the interface, wireguard-go and the firewall table on SIGTERM/SIGINT (with the
   * PRE_DOWN/POST_DOWN hooks). Off by default: a restarted or upgraded agent adopts what is
   * running, so tunnels carry traffic through the restart (DEFGUARD_TEARDOWN_ON_EXIT=1).
   */
  teardownOnExit: boolean;
  /** Backoff bounds in ms for reconnecting. */
  backoffMinMs: number;
  backoffMaxMs: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid gateway configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

/** The environment (process.env by default). */
type Env = Record<string, string | undefined>;

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["", "0", "false", "no", "off"]);
/** Linux IFNAMSIZ-1 characters, no slash/space/colon (what `ip link` accepts). */
const IFNAME = /^[A-Za-z0-9_.=+-]{1,15}$/;

function flag(env: Env, key: string, problems: string[], dflt = false): boolean {
  const raw = env[key];
  if (raw === undefined) return dflt;
  const v = raw.trim().toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  problems.push(`${key} must be 1/true or 0/false, got "${raw}"`);
  return dflt;
}

function int(env: Env, key: string, problems: string[], dflt: number | null, min: number, max: number): number | null {
  const raw = env[key]?.trim();
  if (raw === undefined || raw === "") return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    problems.push(`${key} must be an integer between ${min} and ${max}, got "${raw}"`);
    return dflt;
  }
  return n;
}

const optional = (v: string | undefined) => (v && v.trim() ? v : null);

/** "http://192.0.2.1:50055" → {target "192.0.2.1:50055", tls false}; a bare "host:port" is h2c. */
export function parseGrpcUrl(raw: string): { target: string; tls: boolean } {
  const text = raw.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`DEFGUARD_GRPC_URL is not a URL: "${raw}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error(`DEFGUARD_GRPC_URL must be http:// or https://, got "${raw}"`);
  if (!url.hostname) throw new Error(`DEFGUARD_GRPC_URL has no host: "${raw}"`);
  const tls = url.protocol === "https:";
  const port = url.port || (tls ? "443" : "50055");
  return { target: `${url.hostname}:${port}`, tls };
}

export function loadConfig(env: Env = process.env, readFile: (path: string) => Buffer = readFileSync): GatewayConfig {
  const problems: string[] = [];
  const token = (env.DEFGUARD_TOKEN ?? "").trim();
  if (!token) problems.push("DEFGUARD_TOKEN is required (GET /api/v1/network/{id}/token on the console)");
  const grpcUrl = (env.DEFGUARD_GRPC_URL ?? "").trim();
  let grpcTarget = "";
  let tls = false;
  if (!grpcUrl) problems.push("DEFGUARD_GRPC_URL is required, e.g. http://192.0.2.1:50055");
  else {
    try {
      ({ target: grpcTarget, tls } = parseGrpcUrl(grpcUrl));
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  const caPath = (env.DEFGUARD_GRPC_CA ?? "").trim();
  let ca: Buffer | null = null;
  if (caPath) {
    if (grpcUrl && !tls) problems.push("DEFGUARD_GRPC_CA needs an https:// DEFGUARD_GRPC_URL");
    try {
      ca = readFile(caPath);
      if (!ca.toString("utf8").includes("-----BEGIN CERTIFICATE-----")) problems.push(`DEFGUARD_GRPC_CA is not a PEM certificate file: ${caPath}`);
    } catch (e) {
      problems.push(`DEFGUARD_GRPC_CA cannot be read: ${(e as Error).message}`);
    }
  }
  const ifname = (env.DEFGUARD_IFNAME ?? "wg0").trim() || "wg0";
  if (!IFNAME.test(ifname)) problems.push(`DEFGUARD_IFNAME must be 1-15 characters [A-Za-z0-9_.=+-], got "${ifname}"`);
  const userspace = flag(env, "DEFGUARD_USERSPACE", problems);
  const statsPeriod = int(env, "DEFGUARD_STATS_PERIOD", problems, 30, 1, 86_400)!;
  const reportPeriod = int(env, "DEFGUARD_STATE_REPORT_PERIOD", problems, 60, 1, 86_400)!;
  const healthPort = int(env, "HEALTH_PORT", problems, null, 1, 65535);
  const hostname = (env.DEFGUARD_HOSTNAME ?? "").trim() || osHostname();
  const firewall = !flag(env, "DEFGUARD_DISABLE_FW_MGMT", problems);
  const teardownOnExit = flag(env, "DEFGUARD_TEARDOWN_ON_EXIT", problems);
  if (problems.length) throw new ConfigError(problems);
  return Object.freeze({
    token,
    grpcTarget,
    tls,
    ca,
    grpcUrl,
    ifname,
    userspace,
    wireguardGo: (env.DEFGUARD_WIREGUARD_GO ?? "").trim() || "wireguard-go",
    statsPeriod,
    statsKeepalive: 10,
    reportPeriod,
    preUp: optional(env.DEFGUARD_PRE_UP),
    postUp: optional(env.DEFGUARD_POST_UP),
    preDown: optional(env.DEFGUARD_PRE_DOWN),
    postDown: optional(env.DEFGUARD_POST_DOWN),
    healthPort,
    name: optional(env.DEFGUARD_GATEWAY_NAME)?.trim() ?? null,
    hostname,
    firewall,
    teardownOnExit,
    backoffMinMs: 1000,
    backoffMaxMs: 30_000,
  });
}
