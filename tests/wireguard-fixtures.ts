/**
 * Shared fixtures for the WireGuard integration tests (locations, devices, network devices):
 * thin wrappers over the real route handlers, row counts, and the address invariants every
 * location must keep. Not a test file itself (vitest only collects *.test.ts).
 */
import { expect } from "vitest";
import { GET as networkList, POST as networkCreate } from "@/app/api/v1/network/route";
import { GET as networkGet, PUT as networkPut, DELETE as networkDelete } from "@/app/api/v1/network/[id]/route";
import { GET as deviceConfigGet } from "@/app/api/v1/network/[id]/device/[deviceId]/config/route";
import { POST as importPost } from "@/app/api/v1/network/import/route";
import { POST as mapDevicesPost } from "@/app/api/v1/network/[id]/devices/route";
import { GET as deviceList } from "@/app/api/v1/device/route";
import { POST as deviceCreate, GET as deviceGet, PUT as devicePut, DELETE as deviceDelete } from "@/app/api/v1/device/[id]/route";
import { GET as userDevicesGet } from "@/app/api/v1/device/user/[username]/route";
import { GET as netDevList, POST as netDevCreate } from "@/app/api/v1/device/network/route";
import { GET as netDevGet, PUT as netDevPut, DELETE as netDevDelete } from "@/app/api/v1/device/network/[id]/route";
import { GET as netDevConfig } from "@/app/api/v1/device/network/[id]/config/route";
import { GET as nextIpGet, POST as checkIpPost } from "@/app/api/v1/device/network/ip/[id]/route";
import { POST as groupCreate } from "@/app/api/v1/group/route";
import { POST as groupAddMember, DELETE as groupDelete, PUT as groupPut } from "@/app/api/v1/group/[name]/route";
import { DELETE as groupRemoveMember } from "@/app/api/v1/group/[name]/user/[username]/route";
import { generateKeyPair } from "@/lib/wireguard/keys";
import { parseCidr, parseIp, formatIp } from "@/lib/net/ip";
import { isAssignable } from "@/lib/wireguard/ip";
import { call, query, type Jar } from "./helpers";

let seq = 0;
/** A name unique within the test file (every file has its own database). */
export const uniq = (prefix: string) => `${prefix}-${++seq}`;

/** A fresh, valid WireGuard public key. */
export const newKey = () => generateKeyPair().publicKey;

export interface LocationBody {
  name?: string;
  address?: unknown;
  endpoint?: unknown;
  port?: unknown;
  allowed_ips?: unknown;
  dns?: unknown;
  allowed_groups?: unknown;
  keepalive_interval?: unknown;
  peer_disconnect_threshold?: unknown;
  acl_enabled?: unknown;
  acl_default_allow?: unknown;
  location_mfa_mode?: unknown;
  [k: string]: unknown;
}

/** A valid location request (docs/api.md), with overrides. */
export function locationBody(over: LocationBody = {}): Record<string, unknown> {
  return {
    name: uniq("loc"),
    address: "10.1.0.1/24",
    endpoint: "vpn.example.com",
    port: 51820,
    allowed_ips: "10.0.0.0/8, 192.168.0.0/16",
    dns: "10.1.0.1",
    allowed_groups: [],
    keepalive_interval: 25,
    peer_disconnect_threshold: 300,
    acl_enabled: false,
    acl_default_allow: false,
    location_mfa_mode: "disabled",
    ...over,
  };
}

// ------------------------------------------------------------------------------ API wrappers

const p = (path: string) => `/api/v1${path}`;

export const api = {
  listLocations: (jar: Jar) => call(networkList, { path: p("/network"), jar }),
  createLocation: (jar: Jar, body: unknown) => call(networkCreate, { method: "POST", path: p("/network"), jar, body }),
  getLocation: (jar: Jar, id: number | string) => call(networkGet, { path: p(`/network/${id}`), jar, params: { id: String(id) } }),
  updateLocation: (jar: Jar, id: number | string, body: unknown) =>
    call(networkPut, { method: "PUT", path: p(`/network/${id}`), jar, params: { id: String(id) }, body }),
  deleteLocation: (jar: Jar, id: number | string) =>
    call(networkDelete, { method: "DELETE", path: p(`/network/${id}`), jar, params: { id: String(id) } }),
  importLocation: (jar: Jar, body: unknown) => call(importPost, { method: "POST", path: p("/network/import"), jar, body }),
  mapDevices: (jar: Jar, id: number | string, body: unknown) =>
    call(mapDevicesPost, { method: "POST", path: p(`/network/${id}/devices`), jar, params: { id: String(id) }, body }),
  deviceConfig: (jar: Jar, locationId: number | string, deviceId: number | string) =>
    call(deviceConfigGet, {
      path: p(`/network/${locationId}/device/${deviceId}/config`),
      jar,
      params: { id: String(locationId), deviceId: String(deviceId) },
    }),

  listDevices: (jar: Jar) => call(deviceList, { path: p("/device"), jar }),
  createDevice: (jar: Jar, username: string, body: unknown) =>
    call(deviceCreate, { method: "POST", path: p(`/device/${username}`), jar, params: { id: username }, body }),
  getDevice: (jar: Jar, id: number | string) => call(deviceGet, { path: p(`/device/${id}`), jar, params: { id: String(id) } }),
  updateDevice: (jar: Jar, id: number | string, body: unknown) =>
    call(devicePut, { method: "PUT", path: p(`/device/${id}`), jar, params: { id: String(id) }, body }),
  deleteDevice: (jar: Jar, id: number | string) =>
    call(deviceDelete, { method: "DELETE", path: p(`/device/${id}`), jar, params: { id: String(id) } }),
  userDevices: (jar: Jar, username: string) =>
    call(userDevicesGet, { path: p(`/device/user/${username}`), jar, params: { username } }),

  listNetworkDevices: (jar: Jar) => call(netDevList, { path: p("/device/network"), jar }),
  createNetworkDevice: (jar: Jar, body: unknown) => call(netDevCreate, { method: "POST", path: p("/device/network"), jar, body }),
  getNetworkDevice: (jar: Jar, id: number | string) =>
    call(netDevGet, { path: p(`/device/network/${id}`), jar, params: { id: String(id) } }),
  updateNetworkDevice: (jar: Jar, id: number | string, body: unknown) =>
    call(netDevPut, { method: "PUT", path: p(`/device/network/${id}`), jar, params: { id: String(id) }, body }),
  deleteNetworkDevice: (jar: Jar, id: number | string) =>
    call(netDevDelete, { method: "DELETE", path: p(`/device/network/${id}`), jar, params: { id: String(id) } }),
  networkDeviceConfig: (jar: Jar, id: number | string) =>
    call(netDevConfig, { path: p(`/device/network/${id}/config`), jar, params: { id: String(id) } }),
  nextIp: (jar: Jar, locationId: number | string) =>
    call(nextIpGet, { path: p(`/device/network/ip/${locationId}`), jar, params: { id: String(locationId) } }),
  checkIps: (jar: Jar, locationId: number | string, body: unknown) =>
    call(checkIpPost, { method: "POST", path: p(`/device/network/ip/${locationId}`), jar, params: { id: String(locationId) }, body }),

  createGroup: (jar: Jar, name: string, members: string[] = []) =>
    call(groupCreate, { method: "POST", path: p("/group"), jar, body: { name, members, is_admin: false } }),
  updateGroup: (jar: Jar, name: string, body: unknown) =>
    call(groupPut, { method: "PUT", path: p(`/group/${name}`), jar, params: { name }, body }),
  addMember: (jar: Jar, group: string, username: string) =>
    call(groupAddMember, { method: "POST", path: p(`/group/${group}`), jar, params: { name: group }, body: { username } }),
  removeMember: (jar: Jar, group: string, username: string) =>
    call(groupRemoveMember, { method: "DELETE", path: p(`/group/${group}/user/${username}`), jar, params: { name: group, username } }),
  deleteGroup: (jar: Jar, name: string) => call(groupDelete, { method: "DELETE", path: p(`/group/${name}`), jar, params: { name } }),
};

/** Create a location and return its response body (expects 201). */
export async function mkLocation(jar: Jar, over: LocationBody = {}) {
  const res = await api.createLocation(jar, locationBody(over));
  expect(res.status, res.text).toBe(201);
  return res.json as { id: number; name: string; address: string[]; pubkey: string; [k: string]: unknown };
}

/** Create a user device through the API (expects 201) and return {device, configs}. */
export async function mkDevice(jar: Jar, username: string, over: Record<string, unknown> = {}) {
  const res = await api.createDevice(jar, username, { name: uniq("dev"), wireguard_pubkey: newKey(), ...over });
  expect(res.status, res.text).toBe(201);
  return res.json as { device: { id: number; name: string; wireguard_pubkey: string; user_id: number }; configs: any[] };
}

export async function mkGroup(jar: Jar, name: string, members: string[] = []) {
  const res = await api.createGroup(jar, name, members);
  expect(res.status, res.text).toBe(201);
}

// ------------------------------------------------------------------------------ database reads

/** Row counts of every table this domain writes. */
export async function counts() {
  const [r] = await query<Record<string, number>>(
    `select (select count(*)::int from locations) locations, (select count(*)::int from devices) devices,
            (select count(*)::int from device_locations) device_locations,
            (select count(*)::int from location_allowed_groups) location_groups,
            (select count(*)::int from activity_log) activity`,
  );
  return r;
}

/** The addresses of a device in a location, or null when it has none there. */
export async function ipsOf(deviceId: number, locationId: number): Promise<string[] | null> {
  const rows = await query<{ ips: string[] }>("select ips from device_locations where device_id = $1 and location_id = $2", [
    deviceId,
    locationId,
  ]);
  return rows[0]?.ips ?? null;
}

/** device id → addresses, for every device with a row in the location. */
export async function addressesIn(locationId: number): Promise<Map<number, string[]>> {
  const rows = await query<{ device_id: number; ips: string[] }>(
    "select device_id, ips from device_locations where location_id = $1 order by device_id",
    [locationId],
  );
  return new Map(rows.map((r) => [r.device_id, r.ips]));
}

/**
 * The invariants of a location's addresses (docs/api.md IP assignment): every device row holds one
 * address per CIDR of the location, in the CIDR's order, each inside its CIDR and assignable
 * (not network, broadcast or the location's own address), and no address is used twice.
 */
export async function expectLocationInvariants(locationId: number) {
  const [loc] = await query<{ address: string[] }>("select address from locations where id = $1", [locationId]);
  expect(loc, `location ${locationId} exists`).toBeTruthy();
  const cidrs = loc.address.map((a) => parseCidr(a)!);
  const seen = new Set<string>();
  for (const [deviceId, ips] of await addressesIn(locationId)) {
    expect(ips, `device ${deviceId} has one address per CIDR of ${loc.address.join(", ")}`).toHaveLength(cidrs.length);
    ips.forEach((text, i) => {
      const ip = parseIp(text);
      expect(ip, `device ${deviceId}: ${text} parses`).not.toBeNull();
      expect(formatIp(ip!.value, ip!.version), `canonical form of ${text}`).toBe(text);
      expect(ip!.version).toBe(cidrs[i].version);
      expect(isAssignable(cidrs[i], ip!.value), `device ${deviceId}: ${text} assignable in ${loc.address[i]}`).toBe(true);
      expect(seen.has(text), `address ${text} used twice in location ${locationId}`).toBe(false);
      seen.add(text);
    });
  }
}
