"use client";

import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { z } from "zod";
import { ApiBadRequestError, api } from "@/lib/api/client";
import { useValidationMessages } from "@/components/forms/messages";
import { deviceKeys, type NetworkDevice } from "@/components/devices/api";
import { useApiErrorText } from "@/components/devices/errors";
import { description, deviceName, publicKey } from "@/components/devices/schema";
import { useLocations } from "@/components/locations/api";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/toaster";
import { IpFields, useIpStates } from "./ip-fields";

const schema = z.object({ name: deviceName, description, wireguard_pubkey: publicKey });
/** A device waiting for the defguard CLI may stay without a key. */
const pendingSchema = schema.extend({ wireguard_pubkey: z.union([z.literal(""), publicKey]) });
type Values = z.infer<typeof schema>;
const FIELDS = ["name", "description", "wireguard_pubkey"] as const;

/** Name, description, addresses and public key of a network device (PUT /device/network/{id}). */
export function EditNetworkDeviceDialog({ device, onOpenChange }: { device: NetworkDevice | null; onOpenChange: (open: boolean) => void }) {
  const t = useTranslations("networkDevices.edit");
  const { fromKey } = useValidationMessages();
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const locations = useLocations(!!device);
  const [ips, setIps] = useState<string[]>([]);
  const [submitted, setSubmitted] = useState(false);
  const pending = device ? !device.configured : false;
  const form = useForm<Values>({
    resolver: zodResolver(pending ? pendingSchema : schema),
    mode: "onBlur",
    defaultValues: { name: "", description: "", wireguard_pubkey: "" },
  });
  const { errors } = form.formState;

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

  const save = useMutation({
    mutationFn: (v: Values) =>
      api.put(`/device/network/${device!.id}`, {
        name: v.name,
        description: v.description || null,
        location_id: locationId,
        assigned_ips: ips.map((s) => s.trim()),
        // No key: the device keeps its own (or keeps waiting for the defguard CLI).
        wireguard_pubkey: v.wireguard_pubkey.trim() || null,
      }),
    onSuccess: (_, v) => {
      toast.success(t("saved", { name: v.name }));
      void queryClient.invalidateQueries({ queryKey: deviceKeys.network });
      onOpenChange(false);
    },
    onError: (err) => {
      const field = err instanceof ApiBadRequestError ? err.field : undefined;
      if (field && (FIELDS as readonly string[]).includes(field)) {
        form.setError(field as (typeof FIELDS)[number], { message: errorText(err) }, { shouldFocus: true });
      }
      toast.error(t("failed"), { subMessage: errorText(err) });
    },
  });

  const errorOf = (name: keyof Values) => {
    const m = errors[name]?.message;
    return m ? fromKey(m) : undefined;
  };

  return (
    <Dialog open={!!device} onOpenChange={(o) => !save.isPending && onOpenChange(o)}>
      <DialogContent
        title={t("title", { name: device?.name ?? "" })}
        description={device?.location ? t("description", { location: device.location.name }) : undefined}
        className="max-w-lg"
      >
        <form
          noValidate
          data-testid="edit-network-device-form"
          className="flex flex-col gap-4"
          onSubmit={form.handleSubmit(
            (v) => {
              setSubmitted(true);
              if (ipsOk && !save.isPending) save.mutate(v);
            },
            () => setSubmitted(true),
          )}
        >
          <Field label={t("name")} error={errorOf("name")}>
            <Input autoComplete="off" {...form.register("name")} />
          </Field>
          <IpFields ips={ips} states={states} onChange={setIps} networks={networks} disabled={save.isPending} showRequired={submitted} />
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
          <DialogFooter className="mt-2">
            <DialogClose asChild>
              <Button variant="secondary" disabled={save.isPending}>
                {t("cancel")}
              </Button>
            </DialogClose>
            <Button type="submit" loading={save.isPending} data-testid="nd-save">
              {t("save")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
