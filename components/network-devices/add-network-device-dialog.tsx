"use client";

import { useEffect, useState } from "react";
import Link from "next/link";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { z } from "zod";
import { Info } from "lucide-react";
import { ApiBadRequestError, api, type Stripped } from "@/lib/api/client";
import { addNetworkDeviceFormSchema } from "@/lib/devices/schema";
import { deviceKeys, type CliTokenBody, type CreatedNetworkDeviceBody, type NextFreeIpsBody } from "@/components/devices/api";
import { ConfigResult } from "@/components/devices/config-result";
import { useApiErrorText } from "@/components/devices/errors";
import { KeyMethodField } from "@/components/devices/key-method";
import { generateKeyPair } from "@/components/devices/wg-keys";
import { useLocations, type Location } from "@/components/locations/api";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Skeleton } from "@/components/ui/skeleton";
import { Textarea } from "@/components/ui/textarea";
import { useSubmit } from "@/components/ui/use-submit";
import { CliCommand } from "./cli-command";
import { IpFields, useIpStates } from "./ip-fields";

type Values = z.input<typeof addNetworkDeviceFormSchema>;
type Parsed = z.output<typeof addNetworkDeviceFormSchema>;

/** The result: the device's config (key made here or given), or the defguard CLI command. */
type Created =
  | { kind: "config"; name: string; body: Stripped<CreatedNetworkDeviceBody>; location: Location; privateKey: string | null }
  | { kind: "cli"; name: string; token: Stripped<CliTokenBody>; location: Location };

/** Locations a network device may use: only those without MFA (a device cannot do MFA). */
export function eligibleLocations(all: Location[]): { eligible: Location[]; excluded: Location[] } {
  return {
    eligible: all.filter((l) => l.location_mfa_mode === "disabled"),
    excluded: all.filter((l) => l.location_mfa_mode !== "disabled"),
  };
}

function AddForm({ onCreated, onCancel }: { onCreated: (c: Created) => void; onCancel: () => void }) {
  const t = useTranslations("networkDevices.add");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const locations = useLocations();
  const { eligible, excluded } = eligibleLocations(locations.data ?? []);
  const [ips, setIps] = useState<string[]>([]);
  const [submitted, setSubmitted] = useState(false);

  const form = useForm<Values, unknown, Parsed>({
    resolver: zodResolver(addNetworkDeviceFormSchema),
    mode: "onBlur",
    defaultValues: { name: "", description: "", location_id: "", method: "generate", wireguard_pubkey: "" },
  });
  const method = form.watch("method");
  const locationId = form.watch("location_id");
  const location = eligible.find((l) => String(l.id) === locationId) ?? null;

  // The only eligible location is chosen for the user.
  useEffect(() => {
    if (!form.getValues("location_id") && eligible.length === 1) form.setValue("location_id", String(eligible[0].id));
  }, [eligible, form]);

  // Prefill the next free address of each of the location's networks.
  const free = useQuery({
    queryKey: ["network-device-free-ips", location?.id],
    queryFn: ({ signal }) => api.get<NextFreeIpsBody>(`/device/network/ip/${location!.id}`, { signal }),
    enabled: !!location,
    // Suggestions are read once per opening: a refetch must not overwrite what the user typed.
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
    retry: false,
  });
  useEffect(() => {
    if (free.data) setIps(free.data.map((a) => a.ip));
  }, [free.data]);
  // 404: some network of the location has no free address left.
  const full = free.error instanceof ApiBadRequestError && free.error.status === 404;
  const states = useIpStates(location?.id ?? null, ips);
  const ipsOk = ips.length > 0 && states.every((s) => s === "ok");

  const create = useSubmit(form, {
    mutationFn: async (v): Promise<Created> => {
      const device = {
        name: v.name,
        description: v.description,
        location_id: Number(v.location_id),
        assigned_ips: ips.map((s) => s.trim()),
      };
      if (v.method === "cli") {
        const token = await api.post<CliTokenBody>("/device/network/start_cli", device);
        return { kind: "cli", name: v.name.trim(), token, location: location! };
      }
      const keys = v.method === "generate" ? await generateKeyPair() : null;
      const body = await api.post<CreatedNetworkDeviceBody>("/device/network", {
        ...device,
        wireguard_pubkey: keys ? keys.publicKey : v.wireguard_pubkey.trim(),
      });
      return { kind: "config", name: body.device.name, body, location: location!, privateKey: keys?.privateKey ?? null };
    },
    success: (c) => t("added", { name: c.name }),
    onSuccess: (c) => {
      void queryClient.invalidateQueries({ queryKey: deviceKeys.network });
      onCreated(c);
    },
    errorText,
    failure: t("failed"),
    toastFieldErrors: true,
    onError: (err) => {
      if (err instanceof ApiBadRequestError && err.field === "assigned_ips") void queryClient.invalidateQueries({ queryKey: ["network-device-ips"] });
    },
    onAttempt: () => setSubmitted(true),
    ready: () => ipsOk,
  });
  const { errorOf, onSubmit } = create;

  if (locations.isPending) {
    return (
      <div className="flex flex-col gap-4" aria-hidden>
        {[0, 1, 2].map((i) => (
          <Skeleton key={i} className="h-14 w-full" />
        ))}
      </div>
    );
  }
  if (eligible.length === 0) {
    return (
      <div className="flex flex-col gap-4" data-testid="no-eligible-locations">
        <p className="flex gap-2 rounded-md border border-border bg-subtle px-3 py-2.5 text-sm text-fg-muted">
          <Info className="mt-0.5 size-4 shrink-0" aria-hidden />
          {(locations.data ?? []).length === 0 ? t("noLocations") : t("onlyMfaLocations")}
        </p>
        <DialogFooter className="mt-0">
          <Button variant="secondary" onClick={onCancel}>
            {t("cancel")}
          </Button>
          <Button asChild>
            <Link href={(locations.data ?? []).length === 0 ? "/locations/new" : "/locations"}>{t("toLocations")}</Link>
          </Button>
        </DialogFooter>
      </div>
    );
  }

  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4" data-testid="network-device-form">
      <Field label={t("name")} error={errorOf("name")}>
        <Input autoComplete="off" data-testid="nd-name" {...form.register("name")} />
      </Field>
      <Field label={t("location")} error={errorOf("location_id")} hint={excluded.length ? t("excludedHint", { names: excluded.map((l) => l.name).join(", ") }) : undefined}>
        <Controller
          control={form.control}
          name="location_id"
          render={({ field }) => (
            <Select value={field.value} onValueChange={field.onChange}>
              <SelectTrigger data-testid="nd-location">
                <SelectValue placeholder={t("locationPlaceholder")} />
              </SelectTrigger>
              <SelectContent>
                {eligible.map((l) => (
                  <SelectItem key={l.id} value={String(l.id)}>
                    {l.name}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
          )}
        />
      </Field>
      {location &&
        (free.isPending ? (
          <Skeleton className="h-16 w-full" />
        ) : full ? (
          <p className="text-xs text-error">{t("locationFull")}</p>
        ) : free.isError ? (
          <p className="text-xs text-error">{errorText(free.error)}</p>
        ) : (
          <IpFields ips={ips} states={states} onChange={setIps} networks={location.address} disabled={create.pending} showRequired={submitted} />
        ))}
      <Field label={t("descriptionLabel")} error={errorOf("description")}>
        <Textarea rows={2} {...form.register("description")} />
      </Field>
      <KeyMethodField
        withCli
        value={method}
        onChange={(m) => {
          form.setValue("method", m);
          form.clearErrors("wireguard_pubkey");
        }}
        disabled={create.pending}
      />
      {method === "own" && (
        <Field label={t("publicKey")} error={errorOf("wireguard_pubkey")}>
          <Input className="font-mono text-xs" autoComplete="off" spellCheck={false} data-testid="nd-pubkey" {...form.register("wireguard_pubkey")} />
        </Field>
      )}
      <DialogFooter className="mt-2">
        <Button variant="secondary" onClick={onCancel} disabled={create.pending}>
          {t("cancel")}
        </Button>
        <Button type="submit" loading={create.pending} data-testid="nd-submit">
          {t("submit")}
        </Button>
      </DialogFooter>
    </form>
  );
}

/**
 * Add a network device: location (MFA-free only), addresses, key; then its config, once. Or
 * leave the key to the defguard CLI on the device: then the `dg` command with its token, once.
 */
export function AddNetworkDeviceDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const t = useTranslations("networkDevices.add");
  const tCli = useTranslations("networkDevices.cli");
  const [created, setCreated] = useState<Created | null>(null);

  useEffect(() => {
    if (!open) setCreated(null);
  }, [open]);

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent
        title={!created ? t("title") : created.kind === "cli" ? tCli("readyTitle", { name: created.name }) : t("readyTitle", { name: created.name })}
        description={
          !created
            ? t("description")
            : created.kind === "cli"
              ? tCli("readyDescription", { location: created.location.name })
              : t("readyDescription", { location: created.location.name })
        }
        className={!created ? "max-w-lg" : created.kind === "cli" ? "max-w-2xl" : "max-w-4xl"}
        // The result holds the only copy of a generated private key or CLI token: no closing by a stray click.
        onInteractOutside={(e) => created && e.preventDefault()}
      >
        {created ? (
          <>
            {created.kind === "cli" ? (
              <CliCommand token={created.token} />
            ) : (
              <ConfigResult
                deviceName={created.name}
                privateKey={created.privateKey}
                configs={[{ id: created.location.id, locationName: created.location.name, config: created.body.config.config }]}
              />
            )}
            <DialogFooter>
              <DialogClose asChild>
                <Button data-testid="nd-done">{t("done")}</Button>
              </DialogClose>
            </DialogFooter>
          </>
        ) : (
          <AddForm onCreated={setCreated} onCancel={() => onOpenChange(false)} />
        )}
      </DialogContent>
    </Dialog>
  );
}
