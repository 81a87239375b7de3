/**
 * Gateway token revocation and gateway removal against a real gRPC server and the NOTIFY-fed
 * hub (the path events take from any console process), and gRPC over TLS with a certificate
 * made here with openssl.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { secret } from "@/lib/config";
import { startGrpcServer, loadProtos, type GrpcServerHandle } from "@/lib/grpc/server";
import pg from "pg";
import { databaseUrl } from "@/lib/db";
import { EVENTS_CHANNEL } from "@/lib/events";
import { sessionCount, startHub, stopHub, subscriberCount } from "@/lib/gateways/hub";
import { gatewayConnected } from "@/lib/gateways/service";
import { gatewayToken, verifyJwt } from "@/lib/gateways/jwt";
import { createLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { GET as tokenGet } from "@/app/api/v1/network/[id]/token/route";
import { POST as rotatePost } from "@/app/api/v1/network/[id]/token/rotate/route";
import { GET as gatewaysGet } from "@/app/api/v1/network/[id]/gateways/route";
import { DELETE as gatewayDelete } from "@/app/api/v1/network/[id]/gateways/[gatewayId]/route";
import { call, createUser, query, signIn, type Jar } from "./helpers";
import { makeTestPki, type TestPki } from "./tls";

const ACTOR = { userId: null, username: "test", ip: null };
let server: GrpcServerHandle;
let client: any;
let admin: Jar;
let locationId: number;
let otherLocationId: number;

function md(token: string, hostname: string) {
  const m = new grpc.Metadata();
  m.set("authorization", token);
  m.set("hostname", hostname);
  return m;
}

const config = (c: any, token: string, hostname = "gw-cfg") =>
  new Promise<any>((res, rej) => c.Config({ name: "edge" }, md(token, hostname), (err: grpc.ServiceError | null, v: any) => (err ? rej(err) : res(v))));

/** Open Updates; `ended` resolves with the status the console ended it with. */
function openUpdates(token: string, hostname: string) {
  const stream = client.Updates({}, md(token, hostname));
  const ended = new Promise<{ code: number; details: string; at: number }>((res) => {
    stream.on("error", (e: grpc.ServiceError) => res({ code: e.code, details: e.details, at: Date.now() }));
    stream.on("status", (s: grpc.StatusObject) => res({ code: s.code, details: s.details, at: Date.now() }));
  });
  stream.on("data", () => {});
  return { stream, ended };
}

/** Open Stats; `ended` resolves with the status of the call. */
function openStats(token: string, hostname: string) {
  let settle!: (v: { code: number; at: number }) => void;
  const ended = new Promise<{ code: number; at: number }>((res) => (settle = res));
  const stream = client.Stats(md(token, hostname), (err: grpc.ServiceError | null) => settle({ code: err ? err.code : grpc.status.OK, at: Date.now() }));
  stream.write({ id: 1, empty: {} });
  return { stream, ended };
}

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 25));
  }
}

const location = (name: string, address: string) => locationSchema.parse({ name, address, endpoint: "vpn.example.com", port: 51820 });
const tokenOf = async (id: number) => (await call(tokenGet, { jar: admin, params: { id: String(id) } })).json;

beforeAll(async () => {
  await createUser({ username: "tok-admin", isAdmin: true });
  admin = await signIn("tok-admin");
  await startHub();
  server = await startGrpcServer("127.0.0.1", await freePort());
  client = new (loadProtos().gateway.GatewayService as any)(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  locationId = (await createLocation(ACTOR, location("Rotating", "10.7.0.1/24"))).id;
  otherLocationId = (await createLocation(ACTOR, location("Steady", "10.8.0.1/24"))).id;
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await stopHub();
});

describe("token rotation", () => {
  it("keeps defguard's JWT shape; the first generation has no extra claim", async () => {
    const { token, grpc_url } = await tokenOf(locationId);
    expect(grpc_url).toMatch(/^http:\/\//);
    const claims = verifyJwt(token, secret("gatewaySecret"))!;
    expect(Object.keys(claims).sort()).toEqual(["client_id", "exp", "iss", "nbf", "sub"]);
    expect(claims).toMatchObject({ iss: "DefGuard", sub: `DEFGUARD-NETWORK-${locationId}`, client_id: String(locationId) });
    expect(JSON.parse(Buffer.from(token.split(".")[0], "base64url").toString())).toEqual({ alg: "HS256", typ: "JWT" });
  });

  it("cuts off streams using older tokens within a second; they cannot reconnect; the new token works", async () => {
    const old = (await tokenOf(locationId)).token;
    const steady = openUpdates((await tokenOf(otherLocationId)).token, "gw-steady");
    const updates = openUpdates(old, "gw-old");
    const stats = openStats(old, "gw-old");
    await until(async () => subscriberCount(locationId) === 1 && sessionCount(locationId) === 2 && subscriberCount(otherLocationId) === 1);
    await until(async () => (await query("select 1 from gateways where hostname = 'gw-old' and connected")).length === 1);

    const t0 = Date.now();
    const res = await call(rotatePost, { method: "POST", jar: admin, params: { id: String(locationId) } });
    expect(res.status).toBe(200);
    const fresh = res.json.token as string;
    expect(fresh).not.toBe(old);
    expect(verifyJwt(fresh, secret("gatewaySecret"))).toMatchObject({ sub: `DEFGUARD-NETWORK-${locationId}`, client_id: String(locationId), gen: 1 });

    const [u, s] = await Promise.all([updates.ended, stats.ended]);
    expect(u.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(s.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(Math.max(u.at, s.at) - t0).toBeLessThan(1000);
    await until(async () => sessionCount(locationId) === 0);
    await until(async () => (await query("select 1 from gateways where hostname = 'gw-old' and not connected")).length === 1);
    // The other location's gateway was not touched.
    expect(subscriberCount(otherLocationId)).toBe(1);

    // The old token is refused on every call; the new one works; GET …/token now gives the new generation.
    await expect(config(client, old)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    const again = openUpdates(old, "gw-old");
    expect((await again.ended).code).toBe(grpc.status.UNAUTHENTICATED);
    expect((await config(client, fresh, "gw-new")).name).toBe("Rotating");
    expect(verifyJwt((await tokenOf(locationId)).token, secret("gatewaySecret"))!.gen).toBe(1);

    const [log] = await query<{ username: string; location: string; module: string }>(
      "select username, location, module from activity_log where event = 'gateway_token_rotated'",
    );
    expect(log).toEqual({ username: "tok-admin", location: "Rotating", module: "vpn" });
    steady.stream.cancel();
  });

  it("a rotation committed by another console process reaches the streams held here (NOTIFY)", async () => {
    const current = (await tokenOf(locationId)).token;
    const held = openUpdates(current, "gw-held");
    await until(async () => subscriberCount(locationId) === 1);
    // What another process's rotateToken commits and publishes, from a connection of its own.
    const other = new pg.Client({ connectionString: databaseUrl() });
    await other.connect();
    try {
      const t0 = Date.now();
      const [{ generation }] = (
        await other.query<{ generation: number }>(
          "update locations set gateway_token_generation = gateway_token_generation + 1 where id = $1 returning gateway_token_generation generation",
          [locationId],
        )
      ).rows;
      await other.query("select pg_notify($1, $2)", [EVENTS_CHANNEL, JSON.stringify([{ type: "gateway.token.rotated", locationId, generation }])]);
      const end = await held.ended;
      expect(end.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(end.at - t0).toBeLessThan(1000);
    } finally {
      await other.end();
    }
    await expect(config(client, current)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    expect((await config(client, (await tokenOf(locationId)).token, "gw-next")).name).toBe("Rotating");
  });

  it("streams the gateway ends itself are no longer held", async () => {
    const token = (await tokenOf(locationId)).token;
    const u = openUpdates(token, "gw-brief");
    const st = openStats(token, "gw-brief");
    await until(async () => sessionCount(locationId) === 2);
    u.stream.cancel();
    st.stream.cancel();
    await until(async () => sessionCount(locationId) === 0);
  });

  it("a token forged with a later generation is refused", async () => {
    const forged = gatewayToken(locationId, secret("gatewaySecret"), 7);
    await expect(config(client, forged)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
  });

  it("rotating an unknown location is 404 and records nothing; users may not rotate", async () => {
    const before = (await query("select count(*)::int n from activity_log where event = 'gateway_token_rotated'"))[0];
    const res = await call(rotatePost, { method: "POST", jar: admin, params: { id: "424242" } });
    expect(res.status).toBe(404);
    expect((await query("select count(*)::int n from activity_log where event = 'gateway_token_rotated'"))[0]).toEqual(before);
    await createUser({ username: "tok-user" });
    const user = await signIn("tok-user");
    const denied = await call(rotatePost, { method: "POST", jar: user, params: { id: String(locationId) } });
    expect(denied.status).toBe(403);
    const [{ g }] = await query<{ g: number }>("select gateway_token_generation g from locations where id = $1", [locationId]);
    expect(g).toBe(2);
  });
});

describe("removing a gateway", () => {
  it("closes its stream and records the removal with the connection events", async () => {
    const token = (await tokenOf(otherLocationId)).token;
    const keep = openUpdates(token, "gw-keep");
    const gone = openUpdates(token, "gw-gone");
    await until(async () => subscriberCount(otherLocationId) === 2);
    await until(async () => (await query("select 1 from gateways where hostname in ('gw-keep', 'gw-gone') and connected")).length === 2);
    const list = (await call(gatewaysGet, { jar: admin, params: { id: String(otherLocationId) } })).json as { id: number; hostname: string }[];
    const target = list.find((g) => g.hostname === "gw-gone")!;

    const t0 = Date.now();
    const res = await call(gatewayDelete, { method: "DELETE", jar: admin, params: { id: String(otherLocationId), gatewayId: String(target.id) } });
    expect(res.status).toBe(200);
    const end = await gone.ended;
    expect(end.code).toBe(grpc.status.UNAVAILABLE);
    expect(end.at - t0).toBeLessThan(1000);
    await until(async () => subscriberCount(otherLocationId) === 1);
    const [log] = await query<{ location: string; description: string }>("select location, description from activity_log where event = 'gateway_removed'");
    expect(log).toEqual({ location: "Steady", description: "Removed gateway gw-gone" });
    // The stream's end is not logged as a disconnect of a gateway that no longer exists.
    await new Promise((r) => setTimeout(r, 200));
    expect(await query("select 1 from activity_log where event = 'gateway_disconnected' and description like '%gw-gone%'")).toHaveLength(0);
    expect(await query("select 1 from activity_log where event = 'gateway_connected' and description like '%gw-gone%'")).toHaveLength(1);
    keep.stream.cancel();
  });

  it("a connection that cannot be recorded leaves no activity entry either (one transaction)", async () => {
    const before = await query("select id from activity_log where event = 'gateway_connected'");
    await expect(gatewayConnected(424242, "gw-nowhere", "p")).rejects.toThrow();
    expect(await query("select id from activity_log where event = 'gateway_connected'")).toEqual(before);
    expect(await query("select 1 from gateways where hostname = 'gw-nowhere'")).toHaveLength(0);
  });

  it("404 for an unknown gateway or location, nothing removed", async () => {
    const res = await call(gatewayDelete, { method: "DELETE", jar: admin, params: { id: String(locationId), gatewayId: "999999" } });
    expect(res.status).toBe(404);
    expect((await call(gatewaysGet, { jar: admin, params: { id: "424242" } })).status).toBe(404);
  });
});

describe("gRPC over TLS", () => {
  let pki: TestPki;
  let tlsServer: GrpcServerHandle;
  const saved = { cert: process.env.DEFGUARD_GRPC_CERT, key: process.env.DEFGUARD_GRPC_KEY, host: process.env.DEFGUARD_GRPC_HOST };
  const restore = () => {
    for (const [k, v] of [["DEFGUARD_GRPC_CERT", saved.cert], ["DEFGUARD_GRPC_KEY", saved.key], ["DEFGUARD_GRPC_HOST", saved.host]] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };

  beforeAll(async () => {
    pki = makeTestPki();
    process.env.DEFGUARD_GRPC_CERT = pki.serverCert;
    process.env.DEFGUARD_GRPC_KEY = pki.serverKey;
    tlsServer = await startGrpcServer("127.0.0.1", await freePort());
  });

  afterAll(async () => {
    await tlsServer?.stop();
    restore();
    pki?.cleanup();
  });

  it("serves gateways over TLS to a client trusting the CA; https in the token answer; no plain-text warning", async () => {
    const { token, grpc_url, grpc_plaintext_exposed } = await tokenOf(locationId);
    expect(grpc_url).toMatch(/^https:\/\//);
    expect(grpc_plaintext_exposed).toBe(false);
    const { readFileSync } = await import("node:fs");
    const Service = loadProtos().gateway.GatewayService as any;
    const trusted = new Service(`localhost:${tlsServer.port}`, grpc.credentials.createSsl(readFileSync(pki.caCert)));
    expect((await config(trusted, token, "gw-tls")).name).toBe("Rotating");
    trusted.close();
    // Another CA, or plain h2c, gets nothing.
    const untrusted = new Service(`localhost:${tlsServer.port}`, grpc.credentials.createSsl(readFileSync(pki.otherCaCert)));
    await expect(config(untrusted, token)).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    untrusted.close();
    const plain = new Service(`127.0.0.1:${tlsServer.port}`, grpc.credentials.createInsecure());
    await expect(config(plain, token)).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    plain.close();
  });

  it("the token answer flags plain text on a non-loopback address only", async () => {
    delete process.env.DEFGUARD_GRPC_CERT;
    delete process.env.DEFGUARD_GRPC_KEY;
    try {
      process.env.DEFGUARD_GRPC_HOST = "0.0.0.0";
      expect(await tokenOf(locationId)).toMatchObject({ grpc_url: expect.stringMatching(/^http:\/\//), grpc_plaintext_exposed: true });
      process.env.DEFGUARD_GRPC_HOST = "127.0.0.1";
      expect((await tokenOf(locationId)).grpc_plaintext_exposed).toBe(false);
    } finally {
      process.env.DEFGUARD_GRPC_CERT = pki.serverCert;
      process.env.DEFGUARD_GRPC_KEY = pki.serverKey;
      if (saved.host === undefined) delete process.env.DEFGUARD_GRPC_HOST;
      else process.env.DEFGUARD_GRPC_HOST = saved.host;
    }
  });

  it("a certificate without its key is a start-up error", async () => {
    delete process.env.DEFGUARD_GRPC_KEY;
    try {
      await expect(startGrpcServer("127.0.0.1", await freePort())).rejects.toThrow(/DEFGUARD_GRPC_CERT and DEFGUARD_GRPC_KEY/);
    } finally {
      process.env.DEFGUARD_GRPC_KEY = pki.serverKey;
    }
  });
});
