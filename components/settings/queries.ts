import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, type Stripped } from "@/lib/api/client";
import type { AppInfoBody, EssentialsBody } from "@/lib/api/types";
import type { settingsView } from "@/lib/settings/service";

/** Public essentials (instance name, logos, module flags): always fetched. */
export const essentialsQuery = queryOptions({
  queryKey: ["settings_essentials"],
  queryFn: () => api.get<EssentialsBody>("/settings_essentials"),
});

/** App info (version, licence, integrations): signed-in only, refreshed when the window regains focus. */
export const appInfoQuery = queryOptions({
  queryKey: ["info"],
  queryFn: () => api.get<AppInfoBody>("/info"),
  refetchOnWindowFocus: true,
});

export function useEssentials() {
  return useQuery(essentialsQuery);
}

export function useAppInfo() {
  return useQuery(appInfoQuery);
}

/** GET /settings (admin): everything but secrets, which only say whether they are set. */
export type SettingsViewBody = ReturnType<typeof settingsView>;
export type SettingsView = Stripped<SettingsViewBody>;

export const settingsQuery = queryOptions({
  queryKey: ["settings"],
  queryFn: ({ signal }) => api.get<SettingsViewBody>("/settings", { signal }),
});

export function useSettings() {
  return useQuery(settingsQuery);
}

/** GET /settings_enterprise: every signed-in user reads them (the device screens follow them). */
export type EnterpriseSettingsBody = { admin_device_management: boolean; client_traffic_policy: "none" | "disable_all_traffic" | "force_all_traffic"; only_client_activation: boolean };

export const enterpriseSettingsQuery = queryOptions({
  queryKey: ["settings_enterprise"],
  queryFn: ({ signal }) => api.get<EnterpriseSettingsBody>("/settings_enterprise", { signal }),
  refetchOnWindowFocus: true,
});

export function useEnterpriseSettings() {
  return useQuery(enterpriseSettingsQuery);
}
