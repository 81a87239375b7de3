"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useQueryClient } from "@tanstack/react-query";
import { MapPin, RefreshCw, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import type { BulkResult, DeviceBulkAction, DeviceBulkFilter } from "@/lib/bulk/schema";
import { deviceKeys } from "@/components/devices/api";
import { useApiErrorText } from "@/components/devices/errors";
import { useLocations } from "@/components/locations/api";
import { BulkBar, BulkConfirm, type BulkSelection } from "@/components/ui/bulk-selection";
import { Label } from "@/components/ui/label";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { toast } from "@/components/ui/toaster";

const ACTIONS: { key: DeviceBulkAction; icon: typeof MapPin; danger?: boolean }[] = [
  { key: "move", icon: MapPin },
  { key: "regenerate_configs", icon: RefreshCw },
  { key: "delete", icon: Trash2, danger: true },
];

/** Run a devices bulk action: POST /device/bulk, a toast either way, the lists refetched either way. */
export function useRunDevicesBulk() {
  const t = useTranslations("bulk");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  return async (body: { action: DeviceBulkAction; location_id?: number } & ({ ids: number[] } | { filter: DeviceBulkFilter })) => {
    try {
      const r = await api.post<BulkResult>("/device/bulk", body);
      toast.success(t(`devices.done.${body.action}`, { count: r.changed }));
    } catch (err) {
      toast.error(t("failed"), { subMessage: errorText(err) });
      throw err;
    } finally {
      await queryClient.invalidateQueries({ queryKey: deviceKeys.network });
      await queryClient.invalidateQueries({ queryKey: ["report"] });
    }
  };
}

/** The devices lists' bulk actions: the bar and one confirmation per action (with the location of a move). */
export function DevicesBulkBar({
  selection,
  total,
  actions = ACTIONS.map((a) => a.key),
}: {
  selection: BulkSelection<DeviceBulkFilter>;
  total: number | undefined;
  actions?: DeviceBulkAction[];
}) {
  const t = useTranslations("bulk");
  const run = useRunDevicesBulk();
  const [action, setAction] = useState<DeviceBulkAction | null>(null);
  const [locationId, setLocationId] = useState<string>("");
  const locations = useLocations(action === "move");
  const count = selection.count;
  // Network devices cannot be in MFA locations.
  const targets = (locations.data ?? []).filter((l) => (l.location_mfa_mode ?? "disabled") === "disabled");

  return (
    <>
      <BulkBar
        selection={selection}
        total={total}
        actions={ACTIONS.filter((a) => actions.includes(a.key)).map((a) => ({ ...a, label: t(`devices.${a.key}`) }))}
        onAction={(k) => {
          setLocationId("");
          setAction(k as DeviceBulkAction);
        }}
      />
      <BulkConfirm
        open={action !== null}
        onOpenChange={(o) => !o && setAction(null)}
        title={action ? t(`devices.confirm.${action}.title`, { count }) : ""}
        description={action ? t(`devices.confirm.${action}.description`, { count }) : ""}
        names={selection.labels()}
        confirmLabel={action ? t(`devices.${action}`) : ""}
        danger={action === "delete"}
        confirmDisabled={action === "move" && !locationId}
        onConfirm={async () => {
          await run({ action: action!, ...selection.target(), ...(action === "move" ? { location_id: Number(locationId) } : {}) });
          selection.clear();
        }}
      >
        {action === "move" && (
          <div className="flex flex-col gap-1.5">
            <Label htmlFor="bulk-location">{t("devices.location")}</Label>
            <Select value={locationId} onValueChange={setLocationId}>
              <SelectTrigger id="bulk-location" data-testid="bulk-location">
                <SelectValue placeholder={t("devices.chooseLocation")} />
              </SelectTrigger>
              <SelectContent>
                {targets.map((l) => (
                  <SelectItem key={l.id} value={String(l.id)}>
                    {l.name}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          </div>
        )}
      </BulkConfirm>
    </>
  );
}
