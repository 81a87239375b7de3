"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, type Stripped } from "@/lib/api/client";
import type { createUserDevice, listUserDevices } from "@/lib/devices/service";
import type { createNetworkDevice, listNetworkDevices, nextFreeIps, validateIps } from "@/lib/devices/network";
import type { CliToken } from "@/lib/enrollment/service";

/** GET /device/user/{username} item: a device with its addresses per location. */
export type UserDeviceBody = Awaited<ReturnType<typeof listUserDevices>>[number];
export type UserDevice = Stripped<UserDeviceBody>;
export type UserDeviceNetwork = UserDevice["networks"][number];

/** POST /device/{username}: the device and one wg-quick config per location it may use. */
export type CreatedDeviceBody = Awaited<ReturnType<typeof createUserDevice>>;
export type CreatedDevice = Stripped<CreatedDeviceBody>;
export type DeviceConfig = CreatedDevice["configs"][number];

export type NetworkDeviceBody = Awaited<ReturnType<typeof listNetworkDevices>>[number];
export type NetworkDevice = Stripped<NetworkDeviceBody>;
export type CreatedNetworkDeviceBody = Awaited<ReturnType<typeof createNetworkDevice>>;
export type NextFreeIpsBody = Awaited<ReturnType<typeof nextFreeIps>>;
export type ValidateIpsBody = Awaited<ReturnType<typeof validateIps>>;
/** POST /device/network/start_cli and start_cli/{id}: the defguard CLI token, shown once. */
export type CliTokenBody = CliToken;

export const deviceKeys = {
  user: (username: string) => ["devices", "user", username] as const,
  network: ["devices", "network"] as const,
};

export function userDevicesQuery(username: string) {
  return queryOptions({
    queryKey: deviceKeys.user(username),
    queryFn: ({ signal }) => api.get<UserDeviceBody[]>(`/device/user/${encodeURIComponent(username)}`, { signal }),
  });
}

export function useUserDevices(username: string) {
  return useQuery(userDevicesQuery(username));
}

export const networkDevicesQuery = queryOptions({
  queryKey: deviceKeys.network,
  queryFn: ({ signal }) => api.get<NetworkDeviceBody[]>("/device/network", { signal }),
});

export function useNetworkDevices() {
  return useQuery(networkDevicesQuery);
}

/** The wg-quick text of a user device in one location (private key placeholder). */
export async function fetchUserDeviceConfig(networkId: number, deviceId: number): Promise<string> {
  const body = await api.get<unknown>(`/network/${networkId}/device/${deviceId}/config`);
  if (typeof body !== "string") throw new Error("unexpected configuration format");
  return body;
}

/**
 * The wg-quick text of a network device (private key placeholder). The API answers with the
 * DeviceConfig object (its `config` is the text); plain text is accepted too.
 */
export async function fetchNetworkDeviceConfig(deviceId: number): Promise<string> {
  const body = await api.get<unknown>(`/device/network/${deviceId}/config`);
  if (typeof body === "string") return body;
  const config = (body as { config?: unknown } | undefined)?.config;
  if (typeof config !== "string") throw new Error("unexpected configuration format");
  return config;
}

/** `<location>-<device>.conf`, with characters a file system may refuse replaced. */
export function configFileName(location: string, device: string): string {
  const clean = (s: string) => s.replace(/[^\p{L}\p{N}._-]+/gu, "_").replace(/^[._]+|_+$/g, "") || "device";
  return `${clean(location)}-${clean(device)}.conf`;
}
