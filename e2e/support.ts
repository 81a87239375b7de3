/**
 * Helpers for the end-to-end specs: the run's server (base URL, generated admin password),
 * signing in through the login form, and an API client for creating fixtures.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import * as loader from "@grpc/proto-loader";
import { expect, request, type APIRequestContext, type APIResponse, type Locator, type Page } from "@playwright/test";
import { readState } from "./setup/state";

export { readState };

export function baseURL(): string {
  return readState().baseURL;
}

/** The password the server generated for `admin` on its first start (parsed from its output). */
export function adminPassword(): string {
  return readState().adminPassword;
}

/** Fill and submit the login form (opening /login first unless the page is already there). */
export async function signIn(page: Page, username: string, password: string): Promise<void> {
  if (!new URL(page.url(), "http://x").pathname.startsWith("/login")) await page.goto("/login");
  await page.getByTestId("login-username").fill(username);
  await page.getByTestId("login-password").fill(password);
  await page.getByTestId("login-submit").click();
}

/** Sign in as the run's admin through the login form and wait to leave /login. */
export async function signInAdmin(page: Page): Promise<void> {
  await page.goto("/login");
  await signIn(page, "admin", adminPassword());
  await expect(page).not.toHaveURL(/\/login/);
}

/** A short random suffix for names that must not collide between runs. */
export const suffix = () => Math.random().toString(36).slice(2, 7);

/** Sign out through the shell: the logout entry may sit inside the user menu. */
export async function signOut(page: Page): Promise<void> {
  const logout = page.getByTestId("logout");
  if (!(await logout.isVisible())) await page.getByTestId("user-menu").click();
  await logout.click();
}

/** GET an API path from inside the page, with the page's cookies; returns the status. */
export async function pageApiStatus(page: Page, path: string): Promise<number> {
  return page.evaluate(async (p) => (await fetch(p, { credentials: "same-origin" })).status, path);
}

export type Lang = "en" | "ko" | "pl";

/** A message from messages/<lang>.json by dotted key (nested objects or a flat "a.b" key). */
export function message(lang: Lang, key: string): string {
  const all = JSON.parse(readFileSync(fileURLToPath(new URL(`../messages/${lang}.json`, import.meta.url)), "utf8")) as Record<string, unknown>;
  if (typeof all[key] === "string") return all[key] as string;
  let node: unknown = all;
  for (const part of key.split(".")) {
    node = node && typeof node === "object" ? (node as Record<string, unknown>)[part] : undefined;
  }
  if (typeof node !== "string") throw new Error(`messages/${lang}.json has no string at "${key}"`);
  return node;
}

/**
 * An API client with its own cookie jar. After signIn() it sends the X-XSRF-TOKEN header
 * (the readable XSRF-TOKEN cookie) on unsafe methods, as the UI does.
 */
export class ApiClient {
  private constructor(readonly ctx: APIRequestContext) {}

  static async create(): Promise<ApiClient> {
    return new ApiClient(await request.newContext({ baseURL: baseURL() }));
  }

  /** A client signed in as `username` (default: admin with the generated password). */
  static async as(username = "admin", password?: string): Promise<ApiClient> {
    const c = await ApiClient.create();
    await c.signIn(username, password ?? (username === "admin" ? adminPassword() : ""));
    return c;
  }

  async signIn(username: string, password: string): Promise<unknown> {
    const res = await this.ctx.post("/api/v1/auth", { data: { username, password } });
    expect(res.status(), `sign-in as ${username}: ${await res.text()}`).toBe(200);
    return res.json();
  }

  private async xsrf(): Promise<Record<string, string>> {
    const { cookies } = await this.ctx.storageState();
    const token = cookies.find((c) => c.name === "XSRF-TOKEN")?.value;
    return token ? { "x-xsrf-token": token } : {};
  }

  get(path: string): Promise<APIResponse> {
    return this.ctx.get(path);
  }

  async post(path: string, data?: unknown): Promise<APIResponse> {
    return this.ctx.post(path, { data, headers: await this.xsrf() });
  }

  async put(path: string, data?: unknown): Promise<APIResponse> {
    return this.ctx.put(path, { data, headers: await this.xsrf() });
  }

  async patch(path: string, data?: unknown): Promise<APIResponse> {
    return this.ctx.patch(path, { data, headers: await this.xsrf() });
  }

  async delete(path: string): Promise<APIResponse> {
    return this.ctx.delete(path, { headers: await this.xsrf() });
  }

  /** The JSON body of a successful response; fails the test with the body otherwise. */
  async ok<T = unknown>(res: APIResponse | Promise<APIResponse>, status = 200): Promise<T> {
    const r = await res;
    expect(r.status(), `${r.url()}: ${await r.text()}`).toBe(status);
    return (await r.json()) as T;
  }

  dispose(): Promise<void> {
    return this.ctx.dispose();
  }
}

/** Shorthand: an API client signed in as the admin. */
export function apiClient(username?: string, password?: string): Promise<ApiClient> {
  return ApiClient.as(username, password);
}

/** A location made through the API, with defaults for every field a spec does not care about. */
export async function createLocation<T = { id: number; name: string; pubkey: string }>(api: ApiClient, fields: Record<string, unknown> & { name: string }): Promise<T> {
  return api.ok<T>(
    api.post("/api/v1/network", {
      address: `10.${100 + Math.floor(Math.random() * 100)}.0.1/24`,
      endpoint: "vpn.e2e.example",
      port: 51999,
      allowed_ips: "10.0.0.0/8",
      dns: "",
      allowed_groups: [],
      keepalive_interval: 25,
      peer_disconnect_threshold: 300,
      acl_enabled: false,
      acl_default_allow: false,
      location_mfa_mode: "disabled",
      ...fields,
    }),
    201,
  );
}


/**
 * The gateway protos with the options of lib/grpc/server.ts loadProtos(). That module cannot be
 * imported by a spec: it pulls in lib/settings/info, whose JSON import (package.json)
 * Playwright's loader refuses without an import attribute.
 */
export function gatewayProtos() {
  const def = loader.loadSync(["gateway.proto", "worker.proto"], {
    includeDirs: [fileURLToPath(new URL("../proto", import.meta.url))],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(def) as unknown as { gateway: { GatewayService: grpc.ServiceClientConstructor } };
}

/**
 * The configuration panel of one location on a "device is ready" page. Other specs may have left
 * locations behind, so the panels are tabs: open this location's tab when there are several.
 */
export async function configPanel(page: Page, locationName: string): Promise<Locator> {
  await expect(page.locator('[data-testid="config-panel"]').first()).toBeVisible();
  const tab = page.getByRole("tab", { name: locationName, exact: true });
  if (await tab.count()) await tab.click();
  const panel = page.locator(`[data-testid="config-panel"][data-location="${locationName}"]`);
  await expect(panel).toBeVisible();
  return panel;
}
