"use client";

import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { CheckCircle2 } from "lucide-react";
import { api } from "@/lib/api/client";
import type { ValidateIpsBody } from "@/components/devices/api";
import { Input } from "@/components/ui/input";
import { Label } from "@/components/ui/label";
import { Spinner } from "@/components/ui/spinner";
import { useDebouncedValue } from "@/components/ui/use-debounced-value";

export type IpState = "empty" | "checking" | "invalid" | "inUse" | "ok";

/**
 * Live check of requested addresses (POST /device/network/ip/{location}): each must be a free
 * device address of the location. `deviceId` ignores that device's own
 * addresses (editing).
 */
export function useIpStates(locationId: number | null, ips: string[], deviceId?: number): IpState[] {
  const wanted = ips.map((s) => s.trim());
  const debounced = useDebouncedValue(wanted, 300);
  const stable = debounced.join(",") === wanted.join(",");
  const nonEmpty = debounced.filter(Boolean);
  const check = useQuery({
    queryKey: ["network-device-ips", locationId, debounced, deviceId ?? null],
    queryFn: ({ signal }) =>
      api.post<ValidateIpsBody>(`/device/network/ip/${locationId}`, { ips: nonEmpty, ...(deviceId ? { device_id: deviceId } : {}) }, { signal }),
    enabled: locationId !== null && nonEmpty.length > 0,
    staleTime: 2_000,
    retry: false,
  });
  let k = 0;
  return wanted.map((ip) => {
    if (!ip) return "empty";
    const index = k++;
    if (!stable || check.isFetching || !check.data) return check.isError ? "invalid" : "checking";
    const r = check.data[index];
    if (!r) return "checking";
    return !r.valid ? "invalid" : !r.available ? "inUse" : "ok";
  });
}

interface IpFieldsProps {
  ips: string[];
  states: IpState[];
  onChange: (ips: string[]) => void;
  /** The location's networks (one address each), for the labels. */
  networks: string[];
  disabled?: boolean;
  /** Show "field is required" on empty inputs (after a submit). */
  showRequired?: boolean;
}

/** One address per network of the location, each with its live state. */
export function IpFields({ ips, states, onChange, networks, disabled, showRequired }: IpFieldsProps) {
  const t = useTranslations("networkDevices.ips");
  const tv = useTranslations("validation");
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="mb-1.5 text-sm font-medium text-fg">{t("label")}</legend>
      {ips.map((ip, i) => {
        const state = states[i];
        const id = `ip-${i}`;
        const error =
          state === "invalid" ? t("invalid") : state === "inUse" ? t("inUse") : state === "empty" && showRequired ? tv("required") : null;
        return (
          <div key={i} className="flex flex-col gap-1">
            <Label htmlFor={id} className="text-xs font-normal text-fg-muted">
              {t("inNetwork", { network: networks[i] ?? "" })}
            </Label>
            <div className="relative">
              <Input
                id={id}
                value={ip}
                disabled={disabled}
                className="pr-9 font-mono"
                spellCheck={false}
                autoComplete="off"
                aria-invalid={!!error || undefined}
                aria-describedby={error ? `${id}-error` : undefined}
                onChange={(e) => onChange(ips.map((x, j) => (j === i ? e.target.value : x)))}
                data-testid="ip-input"
              />
              <span className="pointer-events-none absolute right-3 top-1/2 -translate-y-1/2">
                {state === "checking" && <Spinner size={14} className="text-fg-subtle" label={t("checking")} />}
                {state === "ok" && <CheckCircle2 className="size-4 text-success" aria-label={t("available")} />}
              </span>
            </div>
            {error && (
              <p id={`${id}-error`} className="text-xs font-medium text-error first-letter:uppercase" data-testid="ip-error">
                {error}
              </p>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
