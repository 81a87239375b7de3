/**
 * Two console processes on one PostgreSQL: process A runs the embedded database, process B
 * is pointed at it with DATABASE_URL and A's secrets. A fake gateway holds an Updates stream
 * on B; changes made through A's API must reach that stream (the cross-process NOTIFY path).
 */
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { expect, request, test, type APIRequestContext, type APIResponse } from "@playwright/test";
import { makeTempDir, startServer, type RunningServer } from "./setup/server";
import { gatewayProtos } from "./support";

const ADMIN_PASSWORD = "Admin123!x";
const suffix = () => Math.random().toString(36).slice(2, 7);

interface Secrets {
  secretKey: string;
  gatewaySecret: string;
  workerSecret: string;
  encryptionKey: string;
  embeddedDbPassword: string;
}
interface GatewayState {
  hostname: string;
  connected: boolean;
}
interface Update {
  update_type: string;
  peer?: { pubkey: string; allowed_ips: string[] } | null;
}

/** A cookie-jar API client for one server, sending X-XSRF-TOKEN on unsafe methods. */
class Api {
  private constructor(readonly ctx: APIRequestContext) {}

  static async signedIn(baseURL: string, username: string, password: string): Promise<Api> {
    const api = new Api(await request.newContext({ baseURL }));
    await api.ok(api.ctx.post("/api/v1/auth", { data: { username, password } }));
    return api;
  }

  private async xsrf(): Promise<Record<string, string>> {
    const { cookies } = await this.ctx.storageState();
    const token = cookies.find((c) => c.name === "XSRF-TOKEN")?.value;
    return token ? { "x-xsrf-token": token } : {};
  }

  get(path: string) {
    return this.ctx.get(path);
  }
  async post(path: string, data: unknown) {
    return this.ctx.post(path, { data, headers: await this.xsrf() });
  }
  async put(path: string, data: unknown) {
    return this.ctx.put(path, { data, headers: await this.xsrf() });
  }
  async ok<T = unknown>(res: Promise<APIResponse>, status = 200): Promise<T> {
    const r = await res;
    expect(r.status(), `${r.url()}: ${await r.text()}`).toBe(status);
    return (await r.json()) as T;
  }
  dispose() {
    return this.ctx.dispose();
  }
}

/** A gateway client on the console's gRPC port. */
function gatewayClient(port: number) {
  const protos = gatewayProtos();
  return new protos.gateway.GatewayService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}

/** A fake gateway's Updates stream, collecting what arrives. */
function openUpdates(port: number, token: string, hostname: string) {
  const client = gatewayClient(port);
  const md = new grpc.Metadata();
  md.set("authorization", token);
  md.set("hostname", hostname);
  md.set("defguard-component-version", "1.5.0");
  const stream = (client as unknown as { Updates: (req: object, md: grpc.Metadata) => grpc.ClientReadableStream<Update> }).Updates({}, md);
  const got: Update[] = [];
  const errors: Error[] = [];
  stream.on("data", (u: Update) => got.push(u));
  stream.on("error", (e: Error) => errors.push(e));
  return {
    got,
    errors,
    close() {
      stream.cancel();
      client.close();
    },
  };
}

/** A real WireGuard public key: the raw 32 bytes at the end of an X25519 SPKI DER. */
function wireguardPublicKey(): string {
  const { publicKey } = generateKeyPairSync("x25519");
  return publicKey.export({ type: "spki", format: "der" }).subarray(-32).toString("base64");
}

test("a change made through process A reaches a gateway stream held by process B", async () => {
  test.setTimeout(240_000);
  const dirA = makeTempDir("defguard-mp-a-");
  const dirB = makeTempDir("defguard-mp-b-");
  let a: RunningServer | null = null;
  let b: RunningServer | null = null;
  let api: Api | null = null;
  let gateway: ReturnType<typeof openUpdates> | null = null;
  let failed = true;

  try {
    a = await startServer({
      dataDir: join(dirA, "data"),
      logFile: join(dirA, "server.log"),
      env: { DEFGUARD_DEFAULT_ADMIN_PASSWORD: ADMIN_PASSWORD },
    });
    expect(a.dbPort, `A started no embedded PostgreSQL; log:\n${a.log()}`).not.toBeNull();
    const secrets = JSON.parse(readFileSync(join(a.dataDir, "secrets.json"), "utf8")) as Secrets;
    const databaseUrl = `postgres://defguard:${encodeURIComponent(secrets.embeddedDbPassword)}@127.0.0.1:${a.dbPort}/defguard`;

    b = await startServer({
      dataDir: join(dirB, "data"),
      logFile: join(dirB, "server.log"),
      env: {
        DATABASE_URL: databaseUrl,
        DEFGUARD_SECRET_KEY: secrets.secretKey,
        DEFGUARD_GATEWAY_SECRET: secrets.gatewaySecret,
        DEFGUARD_YUBIBRIDGE_SECRET: secrets.workerSecret,
        DEFGUARD_ENCRYPTION_KEY: secrets.encryptionKey,
      },
    });
    expect(b.dbPort, "B must use A's database, not start its own").toBeNull();

    // Fixtures through A: a location, a user, the location's gateway token.
    api = await Api.signedIn(a.baseURL, "admin", ADMIN_PASSWORD);
    const location = await api.ok<{ id: number }>(
      api.post("/api/v1/network", {
        name: `MP ${suffix()}`,
        address: "10.77.0.1/24",
        endpoint: "vpn.example.com",
        port: 51820,
        allowed_ips: "0.0.0.0/0",
        allowed_groups: [],
      }),
      201,
    );
    const username = `mp${suffix()}`;
    const user = {
      username,
      first_name: "Multi",
      last_name: "Process",
      email: `${username}@example.com`,
      phone: null,
    };
    await api.ok(api.post("/api/v1/user", { ...user, password: "Passw0rd!x" }), 201);
    const { token } = await api.ok<{ token: string }>(api.get(`/api/v1/network/${location.id}/token`));

    // The gateway connects to B; A sees it connected (the state is in the shared database).
    const hostname = "mp-gw";
    gateway = openUpdates(b.grpcPort, token, hostname);
    await expect
      .poll(
        async () => {
          const all = await api!.ok<Record<string, GatewayState[]>>(api!.get("/api/v1/network/gateways"));
          return (all[String(location.id)] ?? []).find((g) => g.hostname === hostname)?.connected ?? false;
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    expect(gateway.errors).toEqual([]);

    // A device created through A reaches B's stream as CREATE.
    const pubkey = wireguardPublicKey();
    await api.ok(api.post(`/api/v1/device/${username}`, { name: "mp-laptop", wireguard_pubkey: pubkey }), 201);
    const g = gateway;
    await expect
      .poll(() => g.got.find((u) => u.peer?.pubkey === pubkey && u.update_type === "CREATE") ?? null, { timeout: 5_000 })
      .toMatchObject({ update_type: "CREATE", peer: { pubkey } });

    // Disabling the user through A reaches B's stream as DELETE for the key.
    await api.ok(api.put(`/api/v1/user/${username}`, { ...user, is_active: false }));
    await expect
      .poll(() => g.got.find((u) => u.peer?.pubkey === pubkey && u.update_type === "DELETE") ?? null, { timeout: 5_000 })
      .toMatchObject({ update_type: "DELETE", peer: { pubkey } });
    expect(gateway.errors).toEqual([]);
    failed = false;
  } finally {
    gateway?.close();
    await api?.dispose();
    if (b) await b.stop();
    if (a) await a.stop();
    if (failed) {
      // Keep the logs in the report before the directories go away.
      if (b) console.log(`--- server B log ---\n${b.log().split("\n").slice(-60).join("\n")}`);
      if (a) console.log(`--- server A log ---\n${a.log().split("\n").slice(-60).join("\n")}`);
    }
    rmSync(dirA, { recursive: true, force: true });
    rmSync(dirB, { recursive: true, force: true });
  }
});
