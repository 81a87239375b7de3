/**
 * A PostgreSQL server for specs that need one of their own (an "external" database). It runs
 * in a child process (tests/embedded-db-child.ts) because the embedded-server code is
 * server-only and Playwright loads specs without the server-only resolve hook.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));

export interface ExternalPostgres {
  url: string;
  /** Stops the server cleanly (SIGTERM to the child, which stops PostgreSQL) and waits. */
  stop(): Promise<void>;
}

export async function startPostgres(dir: string, password: string, port: number): Promise<ExternalPostgres> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "./scripts/server-only-hook.mjs", "--import", "tsx", "tests/embedded-db-child.ts", dir, password, "0", String(port)],
    { cwd: root, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stderr!.on("data", (d) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.on("exit", (code) => reject(new Error(`PostgreSQL child exited ${code}: ${err.trim().split("\n").slice(-3).join(" ")}`)));
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return {
    url,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
