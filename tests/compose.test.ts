/**
 * The Docker deliverables without a Docker engine: the compose file's structure, and every
 * environment variable it (or the README's .env one-liner) names is documented — the console's
 * in the README configuration table, the agent's in gateway/README.md, compose-level ones in
 * the README's compose table. Also the Dockerfile's stages and the .dockerignore.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = process.cwd();
const read = (f: string) => readFileSync(join(root, f), "utf8");

interface Service {
  image?: string;
  build?: { context: string; target: string };
  environment?: Record<string, string>;
  env_file?: string | string[];
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  profiles?: string[];
  cap_add?: string[];
  devices?: string[];
  healthcheck?: { test: string[] };
}
const compose = parse(read("docker-compose.yml")) as { services: Record<string, Service>; volumes: Record<string, unknown> };

/** Variable names in the first column of the markdown table following `heading` in `text`. */
function tableVariables(text: string, heading: string): Set<string> {
  const start = text.indexOf(heading);
  expect(start, `heading ${heading}`).toBeGreaterThanOrEqual(0);
  const lines = text.slice(start).split("\n");
  const first = lines.findIndex((l) => l.startsWith("|"));
  const names = new Set<string>();
  for (const l of lines.slice(first)) {
    if (!l.startsWith("|")) break;
    for (const m of l.split("|")[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)) names.add(m[1]);
  }
  return names;
}

const readme = read("README.md");
const consoleVars = tableVariables(readme, "## Configuration");
const composeVars = tableVariables(readme, "Variables the\ncompose file reads from `.env`:");
const agentVars = tableVariables(read("gateway/README.md"), "| variable |");

/** `${NAME}`, `${NAME:-x}`, `${NAME:?x}` references in the compose file. */
function interpolated(text: string): string[] {
  return [...text.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]);
}

describe("docker-compose.yml", () => {
  it("has db on the official PostgreSQL image with a named volume and a health check", () => {
    const db = compose.services.db;
    expect(db.image).toMatch(/^postgres:\d+/);
    const [volume, path] = db.volumes![0].split(":");
    expect(Object.keys(compose.volumes)).toContain(volume);
    expect(path).toMatch(/^\/var\/lib\/postgresql/);
    expect(db.healthcheck?.test.join(" ")).toContain("pg_isready");
    expect(Object.keys(db.environment!)).toEqual(expect.arrayContaining(["POSTGRES_DB", "POSTGRES_USER", "POSTGRES_PASSWORD"]));
  });

  it("runs the console image on the db with DATABASE_URL, ports 8000 and 50055 and secrets from .env", () => {
    const c = compose.services.console;
    expect(c.build).toEqual({ context: ".", target: "console" });
    expect(c.env_file).toBe(".env");
    expect(c.ports).toEqual(expect.arrayContaining(["8000:8000", "50055:50055"]));
    expect(c.depends_on).toEqual({ db: { condition: "service_healthy" } });
    const url = new URL(c.environment!.DATABASE_URL.replace(/\$\{[^}]+\}/, "PASSWORD"));
    const db = compose.services.db.environment!;
    expect(url.protocol).toBe("postgres:");
    expect(url.hostname).toBe("db");
    expect(url.username).toBe(db.POSTGRES_USER);
    expect(url.pathname).toBe(`/${db.POSTGRES_DB}`);
    expect(c.environment!.DATABASE_URL).toContain("${POSTGRES_PASSWORD");
    expect(db.POSTGRES_PASSWORD).toContain("${POSTGRES_PASSWORD");
    const dataDir = c.environment!.DEFGUARD_DATA_DIR;
    expect(c.volumes!.some((v) => v.endsWith(`:${dataDir}`) && Object.keys(compose.volumes).includes(v.split(":")[0]))).toBe(true);
  });

  it("has an optional gateway profile running our agent with NET_ADMIN and /dev/net/tun", () => {
    const g = compose.services.gateway;
    expect(g.profiles).toEqual(["gateway"]);
    expect(g.build).toEqual({ context: ".", target: "gateway" });
    expect(g.cap_add).toContain("NET_ADMIN");
    expect(g.devices).toContain("/dev/net/tun:/dev/net/tun");
    const grpc = new URL(g.environment!.DEFGUARD_GRPC_URL);
    expect(grpc.hostname).toBe("console");
    expect(compose.services.console.ports).toContain(`${grpc.port}:${grpc.port}`);
    // No other service may be in a profile: `docker compose up` starts db and console.
    expect(compose.services.db.profiles).toBeUndefined();
    expect(compose.services.console.profiles).toBeUndefined();
  });

  it("names only documented environment variables", () => {
    const undocumented: string[] = [];
    for (const name of Object.keys(compose.services.console.environment!)) if (!consoleVars.has(name)) undocumented.push(`console: ${name}`);
    for (const name of Object.keys(compose.services.gateway.environment!)) if (!agentVars.has(name)) undocumented.push(`gateway: ${name}`);
    for (const name of interpolated(read("docker-compose.yml"))) if (!composeVars.has(name)) undocumented.push(`\${${name}}`);
    expect(undocumented).toEqual([]);
    // The tables are what they claim to be (a broken parse would make this test vacuous).
    expect(consoleVars.has("DATABASE_URL") && consoleVars.has("DEFGUARD_METRICS_TOKEN")).toBe(true);
    expect(agentVars.has("DEFGUARD_TOKEN")).toBe(true);
  });

  it("gets .env from a README one-liner that writes documented variables, the database password included", () => {
    const block = /```sh\n(umask 077[^\n]*> \.env)\n```/.exec(readme);
    expect(block, "the .env one-liner").not.toBeNull();
    const names = /for v in ([A-Z0-9_ ]+); do/.exec(block![1])![1].trim().split(/\s+/);
    expect(names).toContain("POSTGRES_PASSWORD");
    for (const secret of ["DEFGUARD_SECRET_KEY", "DEFGUARD_GATEWAY_SECRET", "DEFGUARD_YUBIBRIDGE_SECRET", "DEFGUARD_ENCRYPTION_KEY"]) expect(names).toContain(secret);
    for (const n of names) expect(consoleVars.has(n) || composeVars.has(n), n).toBe(true);
    // Every ${…:?…} the compose file requires is either written by the one-liner or documented as a manual step.
    expect(read("docker-compose.yml")).toContain("${POSTGRES_PASSWORD:?");
  });
});

describe("Dockerfile", () => {
  const docker = read("Dockerfile");
  it("builds with npm ci and next build, runs production dependencies as a non-root user with a health check", () => {
    expect(docker).toMatch(/FROM \S+ AS build[\s\S]*RUN npm ci[\s\S]*next build/);
    expect(docker).toMatch(/npm ci --omit=dev/);
    const consoleStage = docker.slice(docker.indexOf("AS console"));
    expect(consoleStage).toMatch(/\nUSER defguard\n/);
    expect(consoleStage).toMatch(/HEALTHCHECK[\s\S]*\/api\/v1\/health/);
    expect(consoleStage).toContain("EXPOSE 8000 50055");
    expect(consoleStage).not.toContain("COPY --from=build /app/node_modules");
    // Both images run compiled JavaScript in one process: no TypeScript loader, no npm parent.
    expect(docker).toMatch(/RUN npx next build && node scripts\/build-server\.mjs/);
    expect(docker).toMatch(/AS gateway[\s\S]*wireguard-tools[\s\S]*CMD \["node", "dist\/gateway\.js"\]/);
    expect(consoleStage).toContain('CMD ["node", "dist/server.js"]');
    // The compiled server's lazily loaded parts (scripts/build-server.mjs) ship with it.
    expect(consoleStage).toContain("COPY --from=build /app/dist/server-chunks ./dist/server-chunks");
    expect(docker).not.toMatch(/CMD \[[^\]]*(tsx|npm)/);
  });

  it("keeps secrets, data and builds out of the build context", () => {
    const ignored = read(".dockerignore").split("\n").map((l) => l.trim());
    for (const p of ["node_modules", ".next", "data", ".env", ".git"]) expect(ignored).toContain(p);
  });
});
