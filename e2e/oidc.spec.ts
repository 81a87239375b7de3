/**
 * The OpenID provider end to end: a real relying party (openid-client, served here on
 * loopback) sends Chromium to the console; the user signs in with password and TOTP, accepts
 * the consent page, and the app validates the id_token (issuer, audience, nonce, signature via
 * the JWKS), reads userinfo and refreshes.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { generate } from "otplib";
import * as oidc from "openid-client";
import { apiClient, baseURL } from "./support";

const PASSWORD = "Oidc-Passw0rd!";
const step = () => Math.floor(Date.now() / 30_000);

let rp: Server;
let rpUrl = "";

test.afterAll(async () => {
  await new Promise<void>((r) => (rp ? rp.close(() => r()) : r()));
});

test("a relying party signs a TOTP user in through login, consent and callback", async ({ page }) => {
  // The relying party's address must be known before the app is registered.
  rp = createServer();
  await new Promise<void>((r) => rp.listen(0, "127.0.0.1", r));
  rpUrl = `http://127.0.0.1:${(rp.address() as AddressInfo).port}`;
  const callback = `${rpUrl}/callback`;

  const admin = await apiClient();
  const username = `oidc-${randomBytes(3).toString("hex")}`;
  await admin.ok(admin.post("/api/v1/user", { username, first_name: "Open", last_name: "Id", email: `${username}@example.com`, password: PASSWORD }), 201);
  await admin.ok(admin.post("/api/v1/group", { name: `team-${username}`, members: [username] }), 201);
  const app = await admin.ok<{ client_id: string; client_secret: string }>(
    admin.post("/api/v1/oauth", { name: "Team Wiki", redirect_uri: [callback], scope: ["openid", "profile", "email", "groups"] }),
    201,
  );
  await admin.dispose();

  // The user turns on TOTP.
  const user = await apiClient(username, PASSWORD);
  const { secret } = await user.ok<{ secret: string }>(user.post("/api/v1/auth/totp/init"));
  await user.ok(user.post("/api/v1/auth/totp", { code: await generate({ secret, epoch: step() * 30 }) }));
  await user.dispose();

  const config = await oidc.discovery(new URL(baseURL()), app.client_id, undefined, oidc.ClientSecretBasic(app.client_secret), {
    execute: [oidc.allowInsecureRequests],
  });
  oidc.enableNonRepudiationChecks(config);
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const results: Record<string, unknown> = {};
  rp.on("request", async (req, res) => {
    const url = new URL(req.url ?? "/", rpUrl);
    if (url.pathname === "/start") {
      const target = oidc.buildAuthorizationUrl(config, {
        redirect_uri: callback,
        scope: "openid profile email groups",
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: "S256",
        state,
        nonce,
      });
      res.writeHead(302, { location: target.toString() }).end();
      return;
    }
    if (url.pathname === "/callback") {
      try {
        const tokens = await oidc.authorizationCodeGrant(config, url, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
        const claims = tokens.claims()!;
        results.claims = claims;
        results.userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
        results.refreshed = !!refreshed.access_token && refreshed.refresh_token !== tokens.refresh_token;
        res.writeHead(200, { "content-type": "text/html" }).end(`<p id="done">signed in as ${String(claims.sub)}</p>`);
      } catch (err) {
        results.error = String(err);
        res.writeHead(500, { "content-type": "text/html" }).end(`<p id="failed">${String(err)}</p>`);
      }
      return;
    }
    res.writeHead(404).end();
  });

  await page.goto(`${rpUrl}/start`);
  await expect(page).toHaveURL(/\/login\?r=%2Fapi%2Fv1%2Foauth%2Finteraction%2F/);
  await page.getByTestId("login-username").fill(username);
  await page.getByTestId("login-password").fill(PASSWORD);
  await page.getByTestId("login-submit").click();
  await expect(page.getByTestId("login-mfa")).toHaveAttribute("data-method", "totp");
  await page.getByTestId("mfa-totp-input").fill(await generate({ secret, epoch: (step() + 1) * 30 }));

  // The consent page: the app's name and the scopes in plain words.
  await expect(page.getByRole("heading", { name: /Team Wiki/ })).toBeVisible();
  await expect(page.getByText("Your e-mail address")).toBeVisible();
  await expect(page.getByText("The names of your groups")).toBeVisible();
  await page.getByRole("button", { name: "Accept" }).click();

  await expect(page.locator("#done")).toBeVisible();
  expect(results.error).toBeUndefined();
  const claims = results.claims as Record<string, unknown>;
  expect(claims.iss).toBe(baseURL().replace(/\/$/, ""));
  expect(claims.aud).toBe(app.client_id);
  expect(claims.nonce).toBe(nonce);
  expect(results.userinfo).toMatchObject({ preferred_username: username, email: `${username}@example.com`, groups: [`team-${username}`], name: "Open Id" });
  expect(results.refreshed).toBe(true);

  // The profile lists the app; revoking it (from its row menu, after confirmation) removes it.
  await page.goto("/me");
  const card = page.getByTestId("authorized-apps");
  await expect(card.getByTestId("authorized-app")).toHaveAttribute("data-app", "Team Wiki");
  await card.getByTestId("authorized-app-actions").click();
  await page.getByTestId("authorized-app-revoke").click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Revoke" }).click();
  await expect(card.getByTestId("authorized-app")).toHaveCount(0);
});
