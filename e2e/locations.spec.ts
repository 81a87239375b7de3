/**
 * WireGuard screens end to end: (a) the location wizard imports a real wg-quick server file
 * and maps its peers to users, who then own devices with the peers' addresses; (b) a device
 * added with a key pair made in the browser downloads a config whose private key belongs to
 * the public key the server stored, and which the real wg-quick accepts.
 */
import { createPrivateKey, createPublicKey } from "node:crypto";
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "@playwright/test";
import { apiClient, signInAdmin, suffix, type ApiClient, createLocation, configPanel } from "./support";

const FIXTURE = fileURLToPath(new URL("./fixtures/import.conf", import.meta.url));
const WG_QUICK = "/usr/bin/wg-quick";

interface UserDevice {
  id: number;
  name: string;
  wireguard_pubkey: string;
  networks: { network_id: number; network_name: string; device_wireguard_ips: string[] }[];
}

/** The public key of a WireGuard private key (base64), as `wg pubkey` computes it. */
function publicKeyOf(privateKey: string): string {
  const der = Buffer.concat([Buffer.from("302e020100300506032b656e04220420", "hex"), Buffer.from(privateKey, "base64")]);
  const spki = createPublicKey(createPrivateKey({ key: der, format: "der", type: "pkcs8" })).export({ format: "der", type: "spki" });
  return spki.subarray(spki.length - 32).toString("base64");
}

/** The peers of the fixture in file order: public key and AllowedIPs. */
function fixturePeers(): { publicKey: string; ip: string }[] {
  const text = readFileSync(FIXTURE, "utf8");
  return [...text.matchAll(/\[Peer\]\s*\nPublicKey = (\S+)\s*\nAllowedIPs = ([\d.]+)\/32/g)].map((m) => ({ publicKey: m[1], ip: m[2] }));
}



async function createUser(api: ApiClient, username: string, first: string) {
  await api.ok(api.post("/api/v1/user", { username, first_name: first, last_name: "E2e", email: `${username}@example.com`, password: "Passw0rd!x" }), 201);
}

test("the wizard imports a wg-quick file and maps its peers to users", async ({ page }) => {
  const api = await apiClient();
  const s = suffix();
  const users = [`imp-alice-${s}`, `imp-bob-${s}`];
  for (const [i, u] of users.entries()) await createUser(api, u, i === 0 ? "Alice" : "Bob");
  const peers = fixturePeers();
  expect(peers.map((p) => p.ip)).toEqual(["10.7.0.2", "10.7.0.3"]);
  const locationName = `Imported ${s}`;

  await signInAdmin(page);
  await page.goto("/locations/new");
  await page.getByTestId("wizard-start").click();
  await page.getByTestId("wizard-import").click();
  await page.getByTestId("wizard-next").click();

  await page.getByTestId("import-file").setInputFiles(FIXTURE);
  await expect(page.getByTestId("import-config")).toHaveValue(/\[Interface\]/);
  await page.getByTestId("import-name").fill(locationName);
  await page.getByTestId("import-endpoint").fill("vpn.import.example");
  await page.getByTestId("import-submit").click();

  const rows = page.getByTestId("map-row");
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0).getByTestId("map-ips")).toHaveValue("10.7.0.2");
  await expect(rows.nth(1).getByTestId("map-ips")).toHaveValue("10.7.0.3");

  // Submitting without users marks the user fields.
  await page.getByTestId("map-submit").click();
  await expect(page.getByTestId("map-error")).toContainText(/fill in marked fields/i);

  for (const [i, username] of users.entries()) {
    const row = rows.nth(i);
    await row.getByTestId("map-name").fill(`${username}-dev`);
    await row.getByTestId("map-user").click();
    await page.getByRole("combobox").fill(username);
    await page.getByRole("option", { name: new RegExp(`^${username}`) }).click();
    await expect(row.getByTestId("map-user")).toContainText(username);
  }
  await page.getByTestId("map-submit").click();
  await expect(page.getByTestId("wizard-done")).toBeVisible();

  // Each user now owns the peer's device, with the peer's key and address in the new location.
  for (const [i, username] of users.entries()) {
    const devices = await api.ok<UserDevice[]>(api.get(`/api/v1/device/user/${username}`));
    const device = devices.find((d) => d.name === `${username}-dev`);
    expect(device, `device of ${username}`).toBeTruthy();
    expect(device!.wireguard_pubkey).toBe(peers[i].publicKey);
    const inLocation = device!.networks.find((n) => n.network_name === locationName);
    expect(inLocation?.device_wireguard_ips).toEqual([peers[i].ip]);
  }
  await api.dispose();
});

test("a device with a browser-made key downloads a config that matches its public key", async ({ page }) => {
  const api = await apiClient();
  const s = suffix();
  const locationName = `dl-${s}`;
  const location = await createLocation(api, { name: locationName, dns: "10.0.0.53" });
  const deviceName = `laptop-${s}`;

  await signInAdmin(page);
  await page.goto("/devices/add");
  await page.getByTestId("device-name").fill(deviceName);
  await expect(page.getByTestId("key-method-generate")).toBeChecked();
  await page.getByTestId("add-device-submit").click();

  await expect(page.getByTestId("key-notice")).toContainText(/shown only now/i);
  const panel = await configPanel(page, locationName);
  await expect(panel.getByTestId("config-qr")).toBeVisible();

  const [download] = await Promise.all([page.waitForEvent("download"), panel.getByTestId("code-download").click()]);
  expect(download.suggestedFilename()).toBe(`${locationName}-${deviceName}.conf`);
  const dir = mkdtempSync(join(tmpdir(), "wg-e2e-"));
  try {
    const file = join(dir, "download.conf");
    await download.saveAs(file);
    const text = readFileSync(file, "utf8");

    const privateKey = /^PrivateKey = (\S+)$/m.exec(text)?.[1];
    expect(privateKey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(privateKey).not.toBe("YOUR_PRIVATE_KEY");

    const devices = await api.ok<UserDevice[]>(api.get("/api/v1/device/user/admin"));
    const device = devices.find((d) => d.name === deviceName)!;
    expect(device, "the new device").toBeTruthy();
    expect(publicKeyOf(privateKey!)).toBe(device.wireguard_pubkey);

    const ips = device.networks.find((n) => n.network_id === location.id)!.device_wireguard_ips;
    expect(text).toMatch(new RegExp(`^Address = ${ips.join(", ").replace(/\./g, "\\.")}$`, "m"));
    expect(text).toMatch(/^Endpoint = vpn\.e2e\.example:51999$/m);
    expect(text).toMatch(/^DNS = 10\.0\.0\.53$/m);

    // The real WireGuard tool must accept the file (strip only parses; it changes nothing).
    if (!existsSync(WG_QUICK)) {
      console.log(`skipping the wg-quick check: ${WG_QUICK} is not installed`);
    } else if (process.getuid?.() !== 0) {
      console.log("skipping the wg-quick check: wg-quick strip re-runs itself with sudo when not root");
    } else {
      // wg-quick wants "<interface name of at most 15 characters>.conf".
      const conf = join(dir, "wge2e.conf");
      copyFileSync(file, conf);
      chmodSync(conf, 0o600);
      const r = spawnSync(WG_QUICK, ["strip", conf], { encoding: "utf8", timeout: 20_000 });
      expect(r.status, `wg-quick strip: ${r.stderr}`).toBe(0);
      expect(r.stdout).toContain(`PrivateKey = ${privateKey}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await api.dispose();
});
