/**
 * Gateway setup and status end to end: an admin opens the gateway page of a new location, sees
 * the token (exactly what GET /network/{id}/token answered) and the ready-to-paste commands, and
 * the status badge says "none connected"; a fake gateway (a real gRPC client, as a gateway
 * would be) opens its Updates stream; "Check status" then says "all connected", and the VPN
 * overview shows the location's gateway as connected. Closing the stream and removing the
 * gateway (with its confirmation) ends it.
 */
import * as grpc from "@grpc/grpc-js";
import { expect, test } from "@playwright/test";
import { apiClient, gatewayProtos, message, signInAdmin, suffix, type ApiClient } from "./support";

interface Location {
  id: number;
  name: string;
}
interface GatewayState {
  id: number;
  hostname: string;
  connected: boolean;
}
interface TokenBody {
  token: string;
  grpc_url: string;
}

const status = (key: "all" | "some" | "none" | "failed") => message("en", `gateways.status.${key}`);

/** The claims of a JWT, unverified (the page's token and the API's are minted at different seconds). */
function claims(jwt: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString("utf8")) as Record<string, unknown>;
}


async function createLocation(api: ApiClient, name: string, octet: number): Promise<Location> {
  return api.ok<Location>(
    api.post("/api/v1/network", {
      name,
      address: `10.${octet}.0.1/24`,
      endpoint: "vpn.example.com",
      port: 51820,
      allowed_ips: "0.0.0.0/0",
      allowed_groups: [],
    }),
    201,
  );
}

/** A fake gateway: the gRPC client a gateway would be, with an open Updates stream. */
function connectGateway(grpcUrl: string, token: string, hostname: string) {
  const port = new URL(grpcUrl).port;
  const protos = gatewayProtos();
  const client = new protos.gateway.GatewayService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  md.set("authorization", token);
  md.set("hostname", hostname);
  md.set("defguard-component-version", "1.5.0");
  const stream = (client as unknown as { Updates: (req: object, md: grpc.Metadata) => grpc.ClientReadableStream<unknown> }).Updates({}, md);
  const errors: Error[] = [];
  stream.on("data", () => {});
  stream.on("error", (e: Error) => errors.push(e));
  return {
    errors,
    close() {
      stream.cancel();
      client.close();
    },
  };
}

test("gateway setup shows the token and commands, and the status follows a connecting gateway", async ({ page }) => {
  const api = await apiClient();
  const name = `Gateway e2e ${suffix()}`;
  const location = await createLocation(api, name, 100 + Math.floor(Math.random() * 100));
  const hostname = `e2e-gw-${suffix()}`;
  let gateway: ReturnType<typeof connectGateway> | null = null;

  try {
    await signInAdmin(page);

    // The page shows exactly the token its own GET /network/{id}/token answered.
    const tokenResponse = page.waitForResponse((r) => new URL(r.url()).pathname === `/api/v1/network/${location.id}/token`);
    await page.goto(`/locations/${location.id}/gateway`);
    const shown = (await (await tokenResponse).json()) as TokenBody;
    const tokenField = page.getByTestId("gateway-token").locator("input");
    await expect(tokenField).toHaveValue(shown.token);
    await expect(page.getByTestId("gateway-grpc-url").locator("input")).toHaveValue(shown.grpc_url);
    await expect(page.getByText(message("en", "gateways.setup.secret"), { exact: true })).toBeVisible();

    // The API agrees: same location in the token, same gRPC address.
    const fromApi = await api.ok<TokenBody>(api.get(`/api/v1/network/${location.id}/token`));
    expect(fromApi.grpc_url).toBe(shown.grpc_url);
    expect(claims(fromApi.token).sub).toBe(`DEFGUARD-NETWORK-${location.id}`);
    expect(claims(shown.token).sub).toBe(claims(fromApi.token).sub);

    // Ready-to-paste blocks: our agent, defguard's gateway in Docker and as a service.
    const agentEnv = page.getByTestId("gateway-agent-env");
    await expect(agentEnv).toContainText(`DEFGUARD_TOKEN=${shown.token}`);
    await expect(agentEnv).toContainText(`DEFGUARD_GRPC_URL=${shown.grpc_url}`);
    for (const line of ["DEFGUARD_IFNAME=wg0", "DEFGUARD_USERSPACE=0", "DEFGUARD_STATS_PERIOD=30", "HEALTH_PORT=55003"]) {
      await expect(agentEnv).toContainText(line);
    }
    await expect(page.getByTestId("gateway-agent-command")).toContainText("--env-file=gateway.env");
    await expect(page.getByTestId("gateway-agent-command")).toContainText("npm run gateway");

    await page.getByTestId("gateway-tab-docker").click();
    const docker = page.getByTestId("gateway-docker-command");
    await expect(docker).toContainText(`-e DEFGUARD_TOKEN=${shown.token}`);
    await expect(docker).toContainText(`-e DEFGUARD_GRPC_URL=${shown.grpc_url}`);
    await expect(docker).toContainText("--cap-add NET_ADMIN --network host");
    await expect(docker).toContainText("ghcr.io/defguard/gateway");

    await page.getByTestId("gateway-tab-systemd").click();
    await expect(page.getByTestId("gateway-systemd-env")).toContainText(`DEFGUARD_TOKEN=${shown.token}`);
    await expect(page.getByTestId("gateway-systemd-env")).toContainText(`DEFGUARD_GRPC_URL=${shown.grpc_url}`);

    // No gateway yet.
    const badge = page.getByTestId("gateway-list").getByTestId("gateway-status");
    await expect(badge).toHaveAttribute("data-status", "none");
    await expect(badge).toHaveText(status("none"));

    // A gateway connects with the shown token; the server records it.
    gateway = connectGateway(shown.grpc_url, shown.token, hostname);
    await expect
      .poll(async () => {
        const list = await api.ok<GatewayState[]>(api.get(`/api/v1/network/${location.id}/gateways`));
        return list.find((g) => g.hostname === hostname)?.connected ?? false;
      }, { timeout: 15_000 })
      .toBe(true);
    expect(gateway.errors).toEqual([]);

    // The status button checks again.
    await page.getByTestId("gateway-check-status").click();
    await expect(badge).toHaveAttribute("data-status", "all");
    await expect(badge).toHaveText(status("all"));
    const row = page.locator(`[data-testid="gateway-row"][data-hostname="${hostname}"]`);
    await expect(row).toHaveAttribute("data-connected", "true");
    await expect(row).toContainText("1.5.0");

    // The overview shows the location with its gateway connected, and links back here.
    await page.goto("/overview");
    const item = page.locator(`[data-testid="overview-gateway-item"][data-location="${name}"]`);
    await expect(item.getByTestId("gateway-status")).toHaveAttribute("data-status", "all");
    await expect(item).toContainText(status("all"));
    await page.goto(`/overview?location=${location.id}`);
    await expect(page.getByTestId("overview-gateway-item")).toHaveCount(1);
    await expect(page.getByTestId("overview-gateway-item").getByTestId("gateway-status")).toHaveAttribute("data-status", "all");
    await page.getByTestId("overview-gateway-item").click();
    await expect(page).toHaveURL(new RegExp(`/locations/${location.id}/gateway$`));

    // The gateway goes away: the check says none connected; removing it asks first.
    gateway.close();
    gateway = null;
    await expect
      .poll(async () => {
        const list = await api.ok<GatewayState[]>(api.get(`/api/v1/network/${location.id}/gateways`));
        return list.find((g) => g.hostname === hostname)?.connected;
      }, { timeout: 15_000 })
      .toBe(false);
    await page.getByTestId("gateway-check-status").click();
    await expect(badge).toHaveAttribute("data-status", "none");
    await row.getByTestId("gateway-delete").click();
    const dialog = page.getByRole("alertdialog");
    await expect(dialog).toContainText(hostname);
    await dialog.getByRole("button", { name: message("en", "gateways.list.confirm") }).click();
    await expect(row).toHaveCount(0);
    expect(await api.ok<GatewayState[]>(api.get(`/api/v1/network/${location.id}/gateways`))).toEqual([]);
  } finally {
    gateway?.close();
    await api.delete(`/api/v1/network/${location.id}`);
    await api.dispose();
  }
});

test("Regenerate token shows a new token and cuts off the gateway using the old one", async ({ page }) => {
  const api = await apiClient();
  const location = await createLocation(api, `Rotate e2e ${suffix()}`, 100 + Math.floor(Math.random() * 100));
  const hostname = `e2e-rot-${suffix()}`;
  let gateway: ReturnType<typeof connectGateway> | null = null;
  try {
    const old = await api.ok<TokenBody>(api.get(`/api/v1/network/${location.id}/token`));
    gateway = connectGateway(old.grpc_url, old.token, hostname);
    await expect
      .poll(async () => (await api.ok<GatewayState[]>(api.get(`/api/v1/network/${location.id}/gateways`))).find((g) => g.hostname === hostname)?.connected ?? false, { timeout: 15_000 })
      .toBe(true);

    await signInAdmin(page);
    await page.goto(`/locations/${location.id}/gateway`);
    const tokenField = page.getByTestId("gateway-token").locator("input");
    await expect(tokenField).toHaveValue(/\./);
    const before = await tokenField.inputValue();
    expect(claims(before).gen).toBeUndefined();
    // The e2e console serves gRPC in plain text on all interfaces: the page says so.
    await expect(page.getByTestId("gateway-plaintext-warning")).toHaveText(message("en", "gateways.setup.plaintextWarning"));

    await page.getByTestId("gateway-token-regenerate").click();
    const dialog = page.getByRole("alertdialog");
    await expect(dialog).toContainText(message("en", "gateways.setup.regenerateTitle"));
    await dialog.getByRole("button", { name: message("en", "gateways.setup.regenerateConfirm") }).click();
    await expect(tokenField).not.toHaveValue(before);
    const after = await tokenField.inputValue();
    expect(claims(after)).toMatchObject({ sub: `DEFGUARD-NETWORK-${location.id}`, gen: 1 });
    await expect(page.getByTestId("gateway-agent-env")).toContainText(`DEFGUARD_TOKEN=${after}`);

    // The gateway holding the old token was cut off with UNAUTHENTICATED and shows as disconnected.
    await expect.poll(() => gateway!.errors.map((e) => (e as grpc.ServiceError).code), { timeout: 5_000 }).toEqual([grpc.status.UNAUTHENTICATED]);
    await expect(page.locator(`[data-testid="gateway-row"][data-hostname="${hostname}"]`)).toHaveAttribute("data-connected", "false", { timeout: 10_000 });
  } finally {
    gateway?.close();
    await api.delete(`/api/v1/network/${location.id}`);
    await api.dispose();
  }
});
