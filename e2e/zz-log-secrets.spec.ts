/**
 * Runs last (file order): the server log of the whole e2e run must not contain the admin
 * password (beyond the one first-start banner that hands it out), a TOTP secret, or a gateway
 * token. This spec itself signs in with the password (also wrongly), sets up TOTP with a wrong
 * and a right code, and fetches a gateway token, so the grep has something to find.
 */
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { generate } from "otplib";
import { adminPassword, apiClient, ApiClient, createLocation, readState, suffix } from "./support";

test("the server log holds no admin password, TOTP secret or gateway token", async () => {
  const admin = await apiClient();
  const s = suffix();
  const username = `logs-${s}`;
  const password = `Lg-${s}-Passw0rd!`;
  await admin.ok(admin.post("/api/v1/user", { username, first_name: "Log", last_name: "Check", email: `${username}@example.com`, password }), 201);

  const wrong = await ApiClient.create();
  expect((await wrong.ctx.post("/api/v1/auth", { data: { username: "admin", password: `${adminPassword()}x` } })).status()).toBe(401);
  await wrong.dispose();

  const user = await ApiClient.as(username, password);
  const { secret } = await user.ok<{ secret: string }>(user.post("/api/v1/auth/totp/init"));
  expect((await user.post("/api/v1/auth/totp", { code: "000000" })).status()).toBeGreaterThanOrEqual(400);
  await user.ok(user.post("/api/v1/auth/totp", { code: await generate({ secret, epoch: Math.floor(Date.now() / 1000 / 30) * 30 }) }));

  const location = await createLocation(admin, { name: `logs-${s}` });
  const { token } = await admin.ok<{ token: string }>(admin.get(`/api/v1/network/${location.id}/token`));
  await admin.dispose();
  await user.dispose();

  const log = readFileSync(readState().logFile, "utf8");
  // The first start prints the generated password once, in its banner; nowhere else.
  const banner = /First start: created user "admin" with the generated password:[\s\S]*?It is shown only this once\./.exec(log);
  expect(banner, "first-start banner").not.toBeNull();
  const rest = log.replace(banner![0], "");
  expect(rest).not.toContain(adminPassword());
  expect(log).not.toContain(password);
  expect(log).not.toContain(secret);
  expect(log).not.toContain(token);
});
