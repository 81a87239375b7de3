/**
 * Gateway revisions in the UI: a fake agent (a real gRPC client speaking GatewaySyncService, as
 * our agent does) takes the configuration and acknowledges it: the location's gateway list says
 * "In sync"; a new device makes it "Applying (revision n of m)" until acknowledged; a state report
 * missing a peer (automatic repair off) shows "Drifted" with the missing peer; "Reconcile now"
 * resends the full configuration; the alert threshold is set in its form (a bad value refused
 * under the field); the overview shows the hour's propagation and the alert line once p95 is
 * above the threshold.
 */
import * as grpc from "@grpc/grpc-js";
import * as loader from "@grpc/proto-loader";
import { fileURLToPath } from "node:url";
import { createHash } from "node:crypto";
import { expect, test } from "@playwright/test";
import { apiClient, message, signInAdmin, suffix } from "./support";
import { generateKeyPair } from "../lib/wireguard/keys";
import { peersText } from "../lib/net/state-digest";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

function syncService(): grpc.ServiceClientConstructor {
  const def = loader.loadSync(["ack.proto"], {
    includeDirs: [fileURLToPath(new URL("../proto", import.meta.url))],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return (grpc.loadPackageDefinition(def) as unknown as { gatewaysync: { GatewaySyncService: grpc.ServiceClientConstructor } }).gatewaysync.GatewaySyncService;
}

test("sync states, drift, Reconcile now and propagation of a gateway that acknowledges", async ({ page }) => {
  const api = await apiClient();
  const name = `sync-${suffix()}`;
  const hostname = `gw-${suffix()}`;
  const loc = await api.ok<{ id: number }>(
    api.post("/api/v1/network", { name, address: "10.77.0.1/24", endpoint: "vpn.example.com", port: 51820, allowed_ips: "0.0.0.0/0", allowed_groups: [] }),
    201,
  );
  const { token, grpc_url } = await api.ok<{ token: string; grpc_url: string }>(api.get(`/api/v1/network/${loc.id}/token`));
  const Sync = syncService();
  const client = new Sync(`127.0.0.1:${new URL(grpc_url).port}`, grpc.credentials.createInsecure()) as unknown as Record<string, (...a: unknown[]) => unknown>;
  const md = () => {
    const m = new grpc.Metadata();
    m.set("authorization", token);
    m.set("hostname", hostname);
    return m;
  };
  const unary = <T,>(method: string, req: unknown) =>
    new Promise<T>((res, rej) => (client[method] as (...a: unknown[]) => void)(req, md(), (e: Error | null, v: T) => (e ? rej(e) : res(v))));
  const got: { item?: string; revision?: number; update?: { network?: unknown } }[] = [];
  const stream = (client.Updates as (req: object, m: grpc.Metadata) => grpc.ClientReadableStream<(typeof got)[number]>)({}, md());
  stream.on("data", (m) => got.push(m));
  stream.on("error", () => {});
  try {
    await new Promise((r) => stream.once("metadata", r));
    const cfg = await unary<{ revision: number }>("Config", {});
    await unary("Applied", { location_id: loc.id, revision: cfg.revision, source: "CONFIG" });

    await signInAdmin(page);
    await page.goto(`/locations/${loc.id}/gateway`);
    const cell = page.locator(`[data-testid="gateway-row"][data-hostname="${hostname}"]`).getByTestId("gateway-sync");
    await expect(cell).toHaveAttribute("data-state", "in_sync");
    await expect(cell).toContainText(message("en", "gateways.sync.in_sync"));

    // A change the gateway has not acknowledged yet.
    const key = generateKeyPair().publicKey;
    await api.ok(api.post("/api/v1/device/admin", { name: `dev-${suffix()}`, wireguard_pubkey: key, description: null }), 201);
    const expected = cfg.revision + 1;
    await expect.poll(() => got.some((m) => m.item === "revision" && m.revision === expected), { timeout: 10_000 }).toBe(true);
    await page.getByTestId("gateway-check-status").click();
    await expect(cell).toHaveAttribute("data-state", "applying");
    await expect(cell).toContainText(`${cfg.revision}`);
    await expect(cell).toContainText(`${expected}`);
    await unary("Applied", { location_id: loc.id, revision: expected, source: "UPDATES" });
    await page.getByTestId("gateway-check-status").click();
    await expect(cell).toHaveAttribute("data-state", "in_sync");

    // Drift with automatic repair off: the peer is reported missing.
    await api.ok(api.put(`/api/v1/network/${loc.id}/gateways/sync`, { auto_repair: false, propagation_alert_ms: 1000 }));
    await page.reload();
    await expect(page.getByTestId("gateway-auto-repair")).toHaveAttribute("data-state", "unchecked");
    // The live interface lacks the new peer (other peers of the location are there).
    const now = await unary<{ revision: number; config: { peers: { pubkey: string; allowed_ips: string[] }[] } }>("Config", {});
    expect(now.revision).toBe(expected);
    const live = now.config.peers.filter((p) => p.pubkey !== key).map((p) => ({ pubkey: p.pubkey, allowed_ips: p.allowed_ips }));
    const report = { location_id: loc.id, revision: expected, peers_digest: sha256(peersText(live)), firewall_digest: "" };
    expect(await unary<{ want_detail: boolean }>("Report", report)).toMatchObject({ want_detail: true });
    await unary("Report", { ...report, peers: live, detail: true });
    await page.getByTestId("gateway-check-status").click();
    await expect(cell).toHaveAttribute("data-state", "drifted");
    await expect(cell.getByTestId("gateway-drift")).toContainText(key);

    // Reconcile now: the full configuration on the stream.
    const seen = got.length;
    await page.getByTestId("gateway-reconcile").click();
    await expect(page.getByText(message("en", "gateways.sync.reconciled"))).toBeVisible();
    await expect.poll(() => got.slice(seen).some((m) => m.item === "update" && m.update?.network), { timeout: 10_000 }).toBe(true);

    // The alert threshold's form: a bad value is refused under the field and saves nothing; 1 ms is saved.
    const syncNow = () => api.ok<{ auto_repair: boolean; propagation_alert_ms: number }>(api.get(`/api/v1/network/${loc.id}/gateways/sync`));
    const threshold = page.getByTestId("propagation-threshold");
    await expect(threshold).toHaveValue("1000");
    await threshold.fill("0");
    await page.getByTestId("propagation-threshold-save").click();
    await expect(page.getByTestId("propagation-threshold-form")).toContainText(message("en", "validation.minValue"));
    await expect(threshold).toHaveAttribute("aria-invalid", "true");
    expect((await syncNow()).propagation_alert_ms).toBe(1000);
    await threshold.fill("1");
    await page.getByTestId("propagation-threshold-save").click();
    await expect(page.getByText(message("en", "gateways.sync.thresholdSaved").replace("{ms, number}", "1"))).toBeVisible();
    // Saved with the switch's value untouched (automatic repair is still off).
    expect(await syncNow()).toMatchObject({ auto_repair: false, propagation_alert_ms: 1 });
    await page.screenshot({ path: test.info().outputPath("gateway-sync-threshold.png"), fullPage: true });

    // Propagation on the overview, and the alert once p95 is above the 1 ms threshold.
    await unary("Applied", { location_id: loc.id, revision: expected + 1, source: "UPDATES" });
    await page.goto(`/overview?location=${loc.id}`);
    await expect(page.getByTestId("propagation")).toBeVisible();
    await expect(page.getByTestId("propagation-alert")).toBeVisible();
    await api.ok(api.put(`/api/v1/network/${loc.id}/gateways/sync`, { auto_repair: true, propagation_alert_ms: 3_600_000 }));
    await page.reload();
    await expect(page.getByTestId("propagation")).toHaveAttribute("data-alert", "false");
    await expect(page.getByTestId("propagation-alert")).toHaveCount(0);
  } finally {
    stream.cancel();
    (client as unknown as grpc.Client).close();
    await api.delete(`/api/v1/network/${loc.id}`);
    await api.dispose();
  }
});
