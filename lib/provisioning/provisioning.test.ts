/**
 * YubiKey provisioning end to end: a worker client built in this test from proto/worker.proto
 * (grpc-js + proto-loader) talks to the real gRPC server; the REST routes are called through the
 * real route wrapper; the webhook goes through the outbox to a real local HTTP receiver.
 */
import * as grpc from "@grpc/grpc-js";
import * as loader from "@grpc/proto-loader";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { startGrpcServer, type GrpcServerHandle } from "@/lib/grpc/server";
import { gatewayToken, signJwt } from "@/lib/gateways/jwt";
import { deliverDue } from "@/lib/outbox/worker";
import { call, createUser, query, setLicence, signIn, type Jar } from "@/tests/helpers";
import { startReceiver, type Receiver } from "@/tests/http-receiver";
import { GPG_ED25519, SSH_ED25519 } from "@/tests/fixtures/auth-keys";
import { GET as listWorkers } from "@/app/api/v1/worker/route";
import { GET as tokenGet } from "@/app/api/v1/worker/token/route";
import { POST as jobPost } from "@/app/api/v1/worker/job/route";
import { DELETE as workerDelete, GET as jobGet } from "@/app/api/v1/worker/[id]/route";
import { GET as authKeysGet } from "@/app/api/v1/user/[username]/auth_key/route";
import { POST as addHook } from "@/app/api/v1/webhook/route";

type Cb<T> = (err: grpc.ServiceError | null, res: T) => void;
interface WorkerClient extends grpc.Client {
  RegisterWorker(req: { id: string }, md: grpc.Metadata, cb: Cb<object>): void;
  GetJob(req: { id: string }, md: grpc.Metadata, cb: Cb<{ first_name: string; last_name: string; email: string; job_id: number }>): void;
  SetJobDone(req: Record<string, unknown>, md: grpc.Metadata, cb: Cb<object>): void;
}

/** The worker's side of the protocol, from the .proto file alone. */
function workerClient(port: number): WorkerClient {
  const def = loader.loadSync("worker.proto", { includeDirs: [join(process.cwd(), "proto")], keepCase: true, longs: Number, defaults: true });
  const pkg = grpc.loadPackageDefinition(def) as unknown as { worker: { WorkerService: grpc.ServiceClientConstructor } };
  return new pkg.worker.WorkerService(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as WorkerClient;
}

function rpc<T>(c: WorkerClient, method: "RegisterWorker" | "GetJob" | "SetJobDone", req: unknown, token: string): Promise<T> {
  const md = new grpc.Metadata();
  if (token) md.set("authorization", token);
  return new Promise((res, rej) => (c[method] as (r: unknown, m: grpc.Metadata, cb: Cb<T>) => void).call(c, req, md, (err: grpc.ServiceError | null, out: T) => (err ? rej(err) : res(out))));
}

let server: GrpcServerHandle;
let client: WorkerClient;
let rx: Receiver;
let admin: Jar;
let alice: Jar;
let token: string;

beforeAll(async () => {
  server = await startGrpcServer("127.0.0.1", await freePort());
  client = workerClient(server.port);
  rx = await startReceiver();
  await createUser({ username: "prov-admin", isAdmin: true });
  await createUser({ username: "alice", firstName: "Alice", lastName: "Liddell", email: "alice@example.com" });
  await createUser({ username: "bob" });
  admin = await signIn("prov-admin");
  alice = await signIn("alice");
  const t = await call(tokenGet, { jar: admin });
  expect(t.status).toBe(201);
  expect(t.json.grpc_url).toMatch(/^http:\/\/.+:\d+$/);
  token = t.json.token;
  const hook = await call(addHook, { method: "POST", jar: admin, body: { url: rx.url, description: "keys", token: "hook-secret", enabled: true, on_hwkey_provision: true } });
  expect(hook.status).toBe(201);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await rx?.close();
});

describe("worker gRPC service and /worker routes", () => {
  it("refuses calls without a worker token: none, a gateway token, a worker-secret token of another kind (UNAUTHENTICATED)", async () => {
    const gw = gatewayToken(1, process.env.DEFGUARD_GATEWAY_SECRET!);
    const otherKind = signJwt({ iss: "DefGuard", sub: "DEFGUARD-NETWORK-1", client_id: "1", exp: Math.floor(Date.now() / 1000) + 60, nbf: 0 }, process.env.DEFGUARD_YUBIBRIDGE_SECRET!);
    for (const bad of ["", gw, otherKind, "garbage"]) {
      await expect(rpc(client, "RegisterWorker", { id: "intruder" }, bad)).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    }
    expect(await query("select 1 from provisioning_workers")).toHaveLength(0);
  });

  it("a worker token is refused by the gateway service (UNAUTHENTICATED)", async () => {
    const def = loader.loadSync("gateway.proto", { includeDirs: [join(process.cwd(), "proto")], keepCase: true, defaults: true });
    const pkg = grpc.loadPackageDefinition(def) as unknown as { gateway: { GatewayService: grpc.ServiceClientConstructor } };
    const gw = new pkg.gateway.GatewayService(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure()) as unknown as {
      Config(r: object, m: grpc.Metadata, cb: Cb<unknown>): void;
      close(): void;
    };
    const md = new grpc.Metadata();
    md.set("authorization", token);
    md.set("hostname", "x");
    const err = await new Promise<grpc.ServiceError | null>((res) => gw.Config({}, md, (e) => res(e)));
    gw.close();
    expect(err?.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it("a worker token is not an API token: as a Bearer on REST it answers 401", async () => {
    const res = await call(listWorkers, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
  });

  it("registers, lists as connected, and refuses a second registration with ALREADY_EXISTS", async () => {
    await rpc(client, "RegisterWorker", { id: "station-1" }, token);
    await expect(rpc(client, "RegisterWorker", { id: "station-1" }, token)).rejects.toMatchObject({ code: grpc.status.ALREADY_EXISTS });
    const list = await call(listWorkers, { jar: admin });
    expect(list.json).toEqual([{ id: "station-1", ip: "127.0.0.1", connected: true }]);
    await expect(rpc(client, "GetJob", { id: "station-1" }, token)).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });

  it("POST /worker/job: 400 naming the field, 404 for unknown worker or user, 403 for another user's key", async () => {
    const bad = await call(jobPost, { method: "POST", jar: admin, body: { username: "alice" } });
    expect(bad.status).toBe(400);
    expect(bad.json.field).toBe("worker");
    expect((await call(jobPost, { method: "POST", jar: admin, body: { worker: "nope", username: "alice" } })).status).toBe(404);
    expect((await call(jobPost, { method: "POST", jar: admin, body: { worker: "station-1", username: "nobody" } })).status).toBe(404);
    expect((await call(jobPost, { method: "POST", jar: alice, body: { worker: "station-1", username: "bob" } })).status).toBe(403);
    expect(await query("select 1 from provisioning_jobs")).toHaveLength(0);
  });

  it("provisions: job → worker gets it → done → keys stored with the serial, status success, user_keys webhook", async () => {
    const created = await call(jobPost, { method: "POST", jar: alice, body: { worker: "station-1", username: "alice" } });
    expect(created.status).toBe(201);
    const jobId = created.json.id as number;
    // Pending: defguard answers null.
    const pending = await call(jobGet, { jar: alice, params: { id: String(jobId) } });
    expect([pending.status, pending.text]).toEqual([200, "null"]);
    // Another user may not read it.
    await createUser({ username: "mallory" });
    expect((await call(jobGet, { jar: await signIn("mallory"), params: { id: String(jobId) } })).status).toBe(403);

    const job = await rpc<{ first_name: string; last_name: string; email: string; job_id: number }>(client, "GetJob", { id: "station-1" }, token);
    expect(job).toEqual({ first_name: "Alice", last_name: "Liddell", email: "alice@example.com", job_id: jobId });
    await rpc(client, "SetJobDone", { id: "station-1", job_id: jobId, success: true, public_key: GPG_ED25519, ssh_key: SSH_ED25519, yubikey_serial: "12345678", error: "" }, token);

    const status = await call(jobGet, { jar: alice, params: { id: String(jobId) } });
    expect(status.json).toEqual({ success: true, serial: "12345678", error: "" });
    const keys = await call(authKeysGet, { jar: alice, params: { username: "alice" } });
    expect(keys.json).toHaveLength(2);
    for (const k of keys.json) expect(k).toMatchObject({ yubikey_serial: "12345678", yubikey_name: "YubiKey 1", yubikey_id: expect.any(Number) });
    expect(keys.json.map((k: { key_type: string }) => k.key_type).sort()).toEqual(["gpg", "ssh"]);
    // The job is gone from the worker's queue.
    await expect(rpc(client, "GetJob", { id: "station-1" }, token)).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });

    // The webhook was queued with the change and is delivered with defguard's HWKeyUserData body.
    await deliverDue({ wait: true });
    await rx.waitFor(1);
    const hit = rx.received.find((r) => r.headers["x-defguard-event"] === "user_keys");
    expect(hit, JSON.stringify(rx.received.map((r) => r.headers["x-defguard-event"]))).toBeTruthy();
    const body = JSON.parse(hit!.body);
    expect(body).toMatchObject({ username: "alice", email: "alice@example.com", serial: "12345678", ssh_key: SSH_ED25519 });
    expect(body.pgp_key).toContain("BEGIN PGP PUBLIC KEY BLOCK");
  });

  it("a failed job: 404 {message}; keys the worker sends that do not parse fail the job and store nothing", async () => {
    const a = (await call(jobPost, { method: "POST", jar: admin, body: { worker: "station-1", username: "bob" } })).json.id;
    await rpc(client, "SetJobDone", { id: "station-1", job_id: a, success: false, error: "card removed", yubikey_serial: "", public_key: "", ssh_key: "" }, token);
    const failed = await call(jobGet, { jar: admin, params: { id: String(a) } });
    expect(failed.status).toBe(404);
    expect(failed.json).toMatchObject({ message: "card removed" });

    const b = (await call(jobPost, { method: "POST", jar: admin, body: { worker: "station-1", username: "bob" } })).json.id;
    await rpc(client, "SetJobDone", { id: "station-1", job_id: b, success: true, public_key: "not a key", ssh_key: SSH_ED25519, yubikey_serial: "999", error: "" }, token);
    expect((await call(jobGet, { jar: admin, params: { id: String(b) } })).status).toBe(404);
    expect(await query("select 1 from authentication_keys k join users u on u.id = k.user_id where u.username = 'bob'")).toHaveLength(0);
    // A report for a job of another worker, or already settled, changes nothing.
    await rpc(client, "SetJobDone", { id: "other", job_id: b, success: true, public_key: GPG_ED25519, ssh_key: SSH_ED25519, yubikey_serial: "1", error: "" }, token);
    expect(await query("select 1 from yubikeys y join users u on u.id = y.user_id where u.username = 'bob'")).toHaveLength(0);
  });

  it("the routes are enterprise features: over the free tier without a licence, 403 license_required", async () => {
    await setLicence(null);
    for (let i = 0; i < 3; i++) await createUser({ username: `prov-extra${i}` });
    const res = await call(listWorkers, { jar: admin });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe("license_required");
  });

  it("over the free tier without a licence, every worker call answers PERMISSION_DENIED saying why, and changes nothing", async () => {
    // Still no licence and over the free tier (previous test). A job made while it was allowed:
    await setLicence((await import("@/tests/fixtures/licence")).testLicence());
    const jobId = (await call(jobPost, { method: "POST", jar: admin, body: { worker: "station-1", username: "bob" } })).json.id as number;
    await setLicence(null);
    const snapshot = () => query("select w.id, w.ip, j.id job, j.state from provisioning_workers w left join provisioning_jobs j on j.worker_id = w.id order by w.id, j.id");
    const before = await snapshot();
    const calls: [Parameters<typeof rpc>[1], unknown][] = [
      ["RegisterWorker", { id: "station-new" }],
      ["GetJob", { id: "station-1" }],
      ["SetJobDone", { id: "station-1", job_id: jobId, success: true, public_key: GPG_ED25519, ssh_key: SSH_ED25519, yubikey_serial: "424242", error: "" }],
    ];
    for (const [method, req] of calls) {
      const err = await rpc(client, method, req, token).then(
        () => null,
        (e: grpc.ServiceError) => e,
      );
      expect(err?.code, method).toBe(grpc.status.PERMISSION_DENIED);
      expect(err?.details, method).toMatch(/YubiKey provisioning is paused: .*enterprise feature.*users \d+\/5.*no licence is installed/);
    }
    expect(await snapshot()).toEqual(before);
    expect(await query("select 1 from yubikeys where serial = '424242'")).toHaveLength(0);
    // The token check comes first: a bad token is still UNAUTHENTICATED.
    await expect(rpc(client, "GetJob", { id: "station-1" }, "garbage")).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });

    // With a licence the pending job is handed out again.
    await setLicence((await import("@/tests/fixtures/licence")).testLicence());
    const job = await rpc<{ job_id: number }>(client, "GetJob", { id: "station-1" }, token);
    expect(job.job_id).toBe(jobId);
    await rpc(client, "SetJobDone", { id: "station-1", job_id: jobId, success: false, error: "cancelled", yubikey_serial: "", public_key: "", ssh_key: "" }, token);
  });

  it("DELETE /worker/{id} forgets the worker (admin), 404 for an unknown one", async () => {
    await setLicence((await import("@/tests/fixtures/licence")).testLicence());
    expect((await call(workerDelete, { method: "DELETE", jar: alice, params: { id: "station-1" } })).status).toBe(403);
    expect((await call(workerDelete, { method: "DELETE", jar: admin, params: { id: "station-1" } })).status).toBe(200);
    expect((await call(workerDelete, { method: "DELETE", jar: admin, params: { id: "station-1" } })).status).toBe(404);
    expect((await call(listWorkers, { jar: admin })).json).toEqual([]);
  });
});
