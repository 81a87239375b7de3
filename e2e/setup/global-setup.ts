/**
 * Playwright global setup: build into .next-e2e when needed, start the console on a fresh
 * temp data directory and a free loopback port (no DEFGUARD_DEFAULT_ADMIN_PASSWORD, so the
 * first-start path generates the admin password, which is read back from the server output),
 * wait for /api/v1/health, and publish the run's state for the tests and the teardown.
 */
import { rmSync } from "node:fs";
import { dirname, join } from "node:path";
import type { FullConfig } from "@playwright/test";
import { ensureBuild, E2E_DIST_DIR } from "./build";
import { makeTempDir, pidAlive, startServer } from "./server";
import { BASE_URL_ENV, STATE_ENV, writeState } from "./state";
import { testLicence } from "../../tests/fixtures/licence";

/**
 * Install an unlimited test licence through the API, as an admin would: the specs share one
 * server and together go past the free tier (locations, users) while using ACL and log streams.
 * e2e/licence.spec.ts replaces it to see the upgrade dialog, and puts it back.
 */
async function installTestLicence(baseURL: string, password: string): Promise<void> {
  const signIn = await fetch(`${baseURL}/api/v1/auth`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ username: "admin", password }),
  });
  if (!signIn.ok) throw new Error(`e2e setup: admin sign-in failed (${signIn.status})`);
  const jar = new Map<string, string>();
  for (const c of signIn.headers.getSetCookie()) {
    const [pair] = c.split(";");
    const i = pair.indexOf("=");
    jar.set(pair.slice(0, i), decodeURIComponent(pair.slice(i + 1)));
  }
  const cookie = [...jar].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ");
  const res = await fetch(`${baseURL}/api/v1/settings`, {
    method: "PATCH",
    headers: { "content-type": "application/json", cookie, "x-xsrf-token": jar.get("XSRF-TOKEN") ?? "" },
    body: JSON.stringify({ license: testLicence({ customer: "e2e" }) }),
  });
  if (!res.ok) throw new Error(`e2e setup: installing the test licence failed (${res.status} ${await res.text()})`);
  await fetch(`${baseURL}/api/v1/auth/logout`, { method: "POST", headers: { cookie, "x-xsrf-token": jar.get("XSRF-TOKEN") ?? "" } });
}

export default async function globalSetup(config: FullConfig): Promise<void> {
  const root = config.configFile ? dirname(config.configFile) : process.cwd();
  const tempDir = makeTempDir("defguard-e2e-");
  const log = (m: string) => console.log(m);
  try {
    await ensureBuild({ root, distDir: E2E_DIST_DIR, log, logFile: join(tempDir, "build.log") });
    const server = await startServer({
      root,
      entry: "server",
      distDir: E2E_DIST_DIR,
      dataDir: join(tempDir, "data"),
      logFile: join(tempDir, "server.log"),
    });
    // The server outlives this function; it must not keep the runner alive on its own.
    server.child.unref();
    // Safety net for a runner that ends without running the teardown (the teardown normally
    // stops the server and waits for it; by then this finds nothing to do).
    const pid = server.pid;
    process.once("exit", () => {
      if (pidAlive(pid)) process.kill(pid, "SIGTERM");
    });
    if (!server.adminPassword) {
      await server.stop();
      throw new Error(`no generated admin password in the server output (${server.logFile}):\n${server.log()}`);
    }
    await installTestLicence(server.baseURL, server.adminPassword);
    const stateFile = join(tempDir, "state.json");
    writeState(stateFile, {
      baseURL: server.baseURL,
      grpcPort: server.grpcPort,
      adminPassword: server.adminPassword,
      tempDir,
      dataDir: server.dataDir,
      logFile: server.logFile,
      serverPid: server.pid,
      dbPort: server.dbPort,
    });
    process.env[STATE_ENV] = stateFile;
    process.env[BASE_URL_ENV] = server.baseURL;
    log(`[e2e] console up at ${server.baseURL} in ${Math.round(server.startupMs)} ms (pid ${server.pid}, log ${server.logFile})`);
  } catch (err) {
    if (process.env.DEFGUARD_E2E_KEEP !== "1") rmSync(tempDir, { recursive: true, force: true });
    throw err;
  }
}
