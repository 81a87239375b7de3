import { sql, type SQL } from "drizzle-orm";

/**
 * Device (docs/api.md) as JSON built by PostgreSQL from a `devices` row aliased `d`: the one
 * producer of the Device shape. The single reads, the create and update answers, GET /device
 * and the UserDevice list all select it, so their fields cannot drift apart
 * (lib/devices/shape.test.ts compares them).
 */
export const deviceJson: SQL = sql`json_build_object(
  'id', d.id, 'name', d.name, 'wireguard_pubkey', d.wireguard_pubkey, 'user_id', d.user_id,
  'created', to_char(d.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
  'description', d.description, 'device_type', d.device_type, 'configured', d.configured)`;

export interface Device {
  id: number;
  name: string;
  wireguard_pubkey: string | null;
  user_id: number;
  created: string;
  description: string | null;
  device_type: "user" | "network";
  configured: boolean;
}
