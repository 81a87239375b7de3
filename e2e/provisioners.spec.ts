/**
 * YubiKey provisioning in the browser, with a stand-in station: a worker client written here
 * from proto/worker.proto registers with the token of GET /worker/token, polls GetJob and
 * answers each job with real public keys. The admin provisions a user's YubiKey twice: from the
 * Provisioners page (station and user chosen with the pickers) and from the user's profile
 * (Add key → YubiKey); the keys then show the YubiKey's serial.
 */
import * as grpc from "@grpc/grpc-js";
import { expect, test, type Page } from "@playwright/test";
import { apiClient, gatewayProtos, signInAdmin, suffix } from "./support";
import { GPG_ED25519, GPG_RSA_3072, SSH_ECDSA_256, SSH_ED25519 } from "../tests/fixtures/auth-keys";

type Cb<T> = (err: grpc.ServiceError | null, res: T) => void;
type WorkerClient = grpc.Client & Record<"RegisterWorker" | "GetJob" | "SetJobDone", (req: unknown, md: grpc.Metadata, cb: Cb<unknown>) => void>;

type Card = { serial: string; ssh: string; gpg: string };

/** A provisioning station: registers, then polls for jobs and reports each one done with the next of `cards`. */
function startStation(grpcUrl: string, token: string, id: string, cards: Card[]) {
  const protos = gatewayProtos() as unknown as { worker: { WorkerService: grpc.ServiceClientConstructor } };
  const client = new protos.worker.WorkerService(`127.0.0.1:${new URL(grpcUrl).port}`, grpc.credentials.createInsecure()) as unknown as WorkerClient;
  const md = new grpc.Metadata();
  md.set("authorization", token);
  const rpc = <T>(method: "RegisterWorker" | "GetJob" | "SetJobDone", req: unknown) =>
    new Promise<T>((res, rej) => client[method](req, md, (err, out) => (err ? rej(err) : res(out as T))));
  const done: number[] = [];
  let stopped = false;
  const loop = (async () => {
    await rpc("RegisterWorker", { id });
    while (!stopped) {
      try {
        const job = await rpc<{ job_id: number }>("GetJob", { id });
        const card = cards[done.length % cards.length];
        await rpc("SetJobDone", { id, job_id: job.job_id, success: true, public_key: card.gpg, ssh_key: card.ssh, yubikey_serial: card.serial, error: "" });
        done.push(job.job_id);
      } catch (err) {
        if ((err as grpc.ServiceError).code !== grpc.status.NOT_FOUND) throw err;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  })();
  return {
    done,
    async stop() {
      stopped = true;
      await loop.catch(() => undefined);
      client.close();
    },
  };
}

async function pick(page: Page, trigger: ReturnType<Page["getByTestId"]>, text: string) {
  await trigger.click();
  await page.locator('[role="combobox"][aria-autocomplete="list"]').fill(text);
  await page.getByRole("option").filter({ hasText: text }).first().click();
  await expect(trigger).toContainText(text);
}

test("provision a YubiKey from the Provisioners page and from the add-key dialog", async ({ page }) => {
  const api = await apiClient();
  const username = `yk-${suffix()}`;
  const station = `station-${suffix()}`;
  await api.ok(api.post("/api/v1/user", { username, first_name: "Yuri", last_name: "Key", email: `${username}@example.com`, password: "Passw0rd!x" }), 201);
  const { token, grpc_url } = await api.ok<{ token: string; grpc_url: string }>(api.get("/api/v1/worker/token"), 201);
  const worker = startStation(grpc_url, token, station, [
    { serial: "10000001", ssh: SSH_ED25519, gpg: GPG_ED25519 },
    { serial: "10000002", ssh: SSH_ECDSA_256, gpg: GPG_RSA_3072 },
  ]);
  try {
    await signInAdmin(page);
    await page.goto("/provisioners");
    const row = page.locator(`[data-testid="worker-row"][data-name="${station}"]`);
    await expect(row).toBeVisible({ timeout: 15_000 });

    // Submitting without a choice marks both pickers.
    await page.getByTestId("provision-start").click();
    await expect(page.getByTestId("provision-worker")).toHaveAttribute("aria-invalid", "true");
    await expect(page.getByTestId("provision-username")).toHaveAttribute("aria-invalid", "true");

    await pick(page, page.getByTestId("provision-worker"), station);
    await pick(page, page.getByTestId("provision-username"), username);
    await page.getByTestId("provision-start").click();
    await expect(page.getByTestId("provision-status")).toHaveAttribute("data-state", "done", { timeout: 20_000 });
    await expect(page.getByTestId("provision-status")).toContainText("10000001");

    // The profile: the keys show the YubiKey's serial; a second YubiKey through Add key → YubiKey.
    await page.goto(`/users/${username}`);
    const keys = page.getByTestId("auth-keys");
    await expect(keys.getByTestId("auth-key-yubikey-serial").first()).toContainText("10000001");
    await keys.getByTestId("auth-key-add").click();
    const dialog = page.getByTestId("auth-key-dialog");
    await dialog.getByTestId("auth-key-type").click();
    await page.getByTestId("auth-key-type-yubikey").click();
    await expect(dialog.getByTestId("auth-key-yubikey")).toBeVisible();
    // Without a station: said in the dialog, nothing started.
    await dialog.getByTestId("auth-key-provision").click();
    await expect(dialog.getByTestId("auth-key-yubikey-error")).toBeVisible();
    await pick(page, dialog.getByTestId("auth-key-worker"), station);
    await dialog.getByTestId("auth-key-provision").click();
    await expect(dialog).toHaveCount(0, { timeout: 20_000 });
    await expect(keys.getByTestId("auth-key-yubikey-serial").filter({ hasText: "10000002" })).toHaveCount(2);
    const stored = await api.ok<{ key_type: string; yubikey_serial: string | null }[]>(api.get(`/api/v1/user/${username}/auth_key`));
    expect(stored.map((k) => `${k.key_type}:${k.yubikey_serial}`).sort()).toEqual(["gpg:10000001", "gpg:10000002", "ssh:10000001", "ssh:10000002"]);
    expect(worker.done).toHaveLength(2);
  } finally {
    await worker.stop();
    await api.delete(`/api/v1/worker/${station}`);
    await api.dispose();
  }
});
