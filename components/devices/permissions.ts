"use client";

import { useCurrentUser } from "@/components/auth/use-current-user";
import { useEnterpriseSettings } from "@/components/settings/queries";

export interface DevicePermissions {
  /** Settings still loading: act as allowed, the API has the last word. */
  loading: boolean;
  canAdd: boolean;
  canEdit: boolean;
  canDelete: boolean;
  canDownload: boolean;
  /** Why a user may not manage devices: only admins do it, or only the desktop client adds them. */
  reason: "adminOnly" | "clientOnly" | null;
}

/**
 * What the signed-in user may do with user devices under the enterprise settings (the same
 * rules lib/devices enforces): admins everything; with admin_device_management others nothing
 * but reading and downloading; with only_client_activation no manual add, edit or download.
 */
export function useDevicePermissions(): DevicePermissions {
  const me = useCurrentUser();
  const settings = useEnterpriseSettings();
  const s = settings.data;
  if (me.data?.is_admin || !s) {
    return { loading: !s && !me.data?.is_admin, canAdd: true, canEdit: true, canDelete: true, canDownload: true, reason: null };
  }
  const adminOnly = s.admin_device_management;
  const clientOnly = s.only_client_activation;
  return {
    loading: false,
    canAdd: !adminOnly && !clientOnly,
    canEdit: !adminOnly && !clientOnly,
    canDelete: !adminOnly,
    canDownload: !clientOnly,
    reason: adminOnly ? "adminOnly" : clientOnly ? "clientOnly" : null,
  };
}
