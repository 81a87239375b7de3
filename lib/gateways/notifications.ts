import "server-only";
import { and, eq, isNotNull, isNull, lt, sql } from "drizzle-orm";
import { getDb } from "../db";
import { transaction } from "../events";
import { gateways, groupUsers, groups, locations, users } from "../db/schema";
import { getSettings } from "../settings/service";
import { sendMail, smtpConfigured } from "../mail/service";

async function adminEmails(): Promise<string[]> {
  const rows = await getDb()
    .selectDistinct({ email: users.email })
    .from(users)
    .innerJoin(groupUsers, eq(groupUsers.userId, users.id))
    .innerJoin(groups, and(eq(groups.id, groupUsers.groupId), eq(groups.isAdmin, true)))
    .where(eq(users.isActive, true));
  return rows.map((r) => r.email);
}

/**
 * Gateway notifications job: e-mail the admins once when a gateway has been disconnected for
 * longer than the inactivity threshold, and (optionally) once when such a gateway is back.
 * Returns what was sent. Does nothing while the feature is off or SMTP is not configured.
 */
export async function notifyGateways(): Promise<{ down: string[]; up: string[] }> {
  const s = await getSettings();
  const result = { down: [] as string[], up: [] as string[] };
  if (!s.gatewayDisconnectNotifications || !smtpConfigured(s)) return result;
  const db = getDb();
  const down = await db
    .select({ g: gateways, location: locations.name })
    .from(gateways)
    .innerJoin(locations, eq(locations.id, gateways.locationId))
    .where(
      and(
        eq(gateways.connected, false),
        isNotNull(gateways.disconnectedAt),
        isNull(gateways.disconnectNotifiedAt),
        lt(gateways.disconnectedAt, sql`now() - make_interval(mins => ${s.gatewayInactivityThreshold})`),
      ),
    );
  const up = s.gatewayReconnectNotifications
    ? await db
        .select({ g: gateways, location: locations.name })
        .from(gateways)
        .innerJoin(locations, eq(locations.id, gateways.locationId))
        .where(and(eq(gateways.connected, true), isNotNull(gateways.disconnectNotifiedAt)))
    : [];
  if (!down.length && !up.length) {
    // Reconnected gateways are re-armed even when no reconnect mail is wanted.
    await transaction((tx) =>
      tx.update(gateways).set({ disconnectNotifiedAt: null }).where(and(eq(gateways.connected, true), isNotNull(gateways.disconnectNotifiedAt))),
    );
    return result;
  }
  const to = await adminEmails();
  for (const { g, location } of down) {
    for (const addr of to) {
      await sendMail({
        to: addr,
        subject: `${s.instanceName}: gateway ${g.hostname} of ${location} is disconnected`,
        text: `The gateway ${g.hostname} of location ${location} has been disconnected since ${g.disconnectedAt!.toISOString()} (over ${s.gatewayInactivityThreshold} minutes). VPN clients of this location cannot connect through it.\n`,
      });
    }
    await transaction((tx) => tx.update(gateways).set({ disconnectNotifiedAt: new Date() }).where(eq(gateways.id, g.id)));
    result.down.push(g.hostname);
  }
  for (const { g, location } of up) {
    for (const addr of to) {
      await sendMail({
        to: addr,
        subject: `${s.instanceName}: gateway ${g.hostname} of ${location} is connected again`,
        text: `The gateway ${g.hostname} of location ${location} reconnected at ${g.connectedAt?.toISOString() ?? "an unknown time"}.\n`,
      });
    }
    await transaction((tx) => tx.update(gateways).set({ disconnectNotifiedAt: null }).where(eq(gateways.id, g.id)));
    result.up.push(g.hostname);
  }
  return result;
}
