/** Gateway notifications job: e-mails the admins through a real SMTP sink. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PATCH as settingsPatch } from "@/app/api/v1/settings/route";
import { createLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { notifyGateways } from "@/lib/gateways/notifications";
import { call, createUser, query, signIn, type Jar } from "./helpers";
import { startSmtpSink, useSmtpSink, type SmtpSink } from "./smtp-sink";

let sink: SmtpSink;
let admin: Jar;
let locationId: number;

beforeAll(async () => {
  await createUser({ username: "ops", email: "ops@example.com", isAdmin: true });
  await createUser({ username: "plain", email: "plain@example.com" });
  admin = await signIn("ops");
  sink = await startSmtpSink();
  await useSmtpSink(sink);
  locationId = (await createLocation({ userId: null, username: "t", ip: null }, locationSchema.parse({ name: "Edge", address: "10.9.0.1/24", endpoint: "vpn.example.com", port: 51820 }))).id;
  await query(
    "insert into gateways (location_id, hostname, connected, connected_at, disconnected_at) values ($1, 'gw-a', false, now() - interval '1 hour', now() - interval '10 minutes')",
    [locationId],
  );
});
afterAll(() => sink.close());

describe("gateway notifications", () => {
  it("does nothing while switched off", async () => {
    expect(await notifyGateways()).toEqual({ down: [], up: [] });
    expect(sink.messages).toHaveLength(0);
  });

  it("validates the settings", async () => {
    const bad = await call(settingsPatch, { method: "PATCH", jar: admin, body: { gateway_disconnect_notifications_inactivity_threshold: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.json.field).toBe("gateway_disconnect_notifications_inactivity_threshold");
  });

  it("tells the admins once after the threshold, then once when the gateway is back", async () => {
    const on = await call(settingsPatch, {
      method: "PATCH",
      jar: admin,
      body: { gateway_disconnect_notifications_enabled: true, gateway_disconnect_notifications_inactivity_threshold: 15, gateway_disconnect_notifications_reconnect_notification_enabled: true },
    });
    expect(on.status, on.text).toBe(200);
    // 10 minutes down is below a 15-minute threshold.
    expect((await notifyGateways()).down).toEqual([]);
    await query("update gateways set disconnected_at = now() - interval '16 minutes'");
    expect((await notifyGateways()).down).toEqual(["gw-a"]);
    const mail = await sink.next(0);
    expect(mail.to).toEqual(["ops@example.com"]);
    expect(mail.subject).toMatch(/gw-a .*Edge.* disconnected/);
    // Not again while still down.
    expect((await notifyGateways()).down).toEqual([]);
    expect(sink.messages).toHaveLength(1);

    await query("update gateways set connected = true, connected_at = now()");
    expect((await notifyGateways()).up).toEqual(["gw-a"]);
    expect((await sink.next(1)).subject).toMatch(/connected again/);
    expect((await notifyGateways()).up).toEqual([]);
  });
});
