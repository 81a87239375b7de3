"use client";

import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { z } from "zod";
import { api } from "@/lib/api/client";
import { editNetworkDeviceFormSchema, editPendingNetworkDeviceFormSchema } from "@/lib/devices/schema";
import { deviceKeys, type NetworkDevice } from "@/components/devices/api";
import { useApiErrorText } from "@/components/devices/errors";
import { useLocations } from "@/components/locations/api";
import { Dialog, DialogContent, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { useSubmit } from "@/components/ui/use-submit";
import { IpFields, useIpStates } from "./ip-fields";

type Values = z.input<typeof editPendingNetworkDeviceFormSchema>;
type Parsed = z.output<typeof editPendingNetworkDeviceFormSchema>;

/** Name, description, addresses and public key of a network device (PUT /device/network/{id}). */
export function EditNetworkDeviceDialog({ device, onOpenChange }: { device: NetworkDevice | null; onOpenChange: (open: boolean) => void }) {
  const t = useTranslations("networkDevices.edit");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const locations = useLocations(!!device);
  const [ips, setIps] = useState<string[]>([]);
  const [submitted, setSubmitted] = useState(false);
  const pending = device ? !device.configured : false;
  const form = useForm<Values, unknown, Parsed>({
    // A device waiting for the defguard CLI may stay without a key.
    resolver: zodResolver(pending ? editPendingNetworkDeviceFormSchema : editNetworkDeviceFormSchema),
    mode: "onBlur",
    defaultValues: { name: "", description: "", wireguard_pubkey: "" },
  });

  useEffect(() => {
    if (!device) return;
    form.reset({ name: device.name, description: device.description ?? "", wireguard_pubkey: device.wireguard_pubkey ?? "" });
    setIps(device.assigned_ips);
    setSubmitted(false);
  }, [device, form]);

  const locationId = device?.location?.id ?? null;
  const states = useIpStates(locationId, ips, device?.id);
  const networks = locations.data?.find((l) => l.id === locationId)?.address ?? [];
  const ipsOk = ips.length > 0 && states.every((s) => s === "ok");

  const save = useSubmit(form, {
    mutationFn: (v) =>
      api.put(`/device/network/${device!.id}`, {
        ...v,
        location_id: locationId,
        assigned_ips: ips.map((s) => s.trim()),
      }),
    success: (_, v) => t("saved", { name: v.name }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: deviceKeys.network });
      onOpenChange(false);
    },
    errorText,
    failure: t("failed"),
    toastFieldErrors: true,
    onAttempt: () => setSubmitted(true),
    ready: () => ipsOk,
  });
  const { errorOf } = save;

  return (
    <Dialog open={!!device} onOpenChange={(o) => !save.pending && onOpenChange(o)}>
      <DialogContent
        title={t("title", { name: device?.name ?? "" })}
        description={device?.location ? t("description", { location: device.location.name }) : undefined}
        className="max-w-lg"
      >
        <form
          noValidate
          data-testid="edit-network-device-form"
          className="flex flex-col gap-4"
          onSubmit={save.onSubmit}
        >
          <Field label={t("name")} error={errorOf("name")}>
            <Input autoComplete="off" {...form.register("name")} />
          </Field>
          <IpFields ips={ips} states={states} onChange={setIps} networks={networks} disabled={save.pending} showRequired={submitted} />
          <Field label={t("descriptionLabel")} error={errorOf("description")}>
            <Textarea rows={2} {...form.register("description")} />
          </Field>
          <Field
            label={pending ? t("publicKeyOptional") : t("publicKey")}
            error={errorOf("wireguard_pubkey")}
            hint={pending ? t("publicKeyPendingHint") : t("publicKeyHint")}
          >
            <Input className="font-mono text-xs" autoComplete="off" spellCheck={false} {...form.register("wireguard_pubkey")} />
          </Field>
          <DialogFormFooter submitLabel={t("save")} pending={save.pending} submitTestId="nd-save" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
