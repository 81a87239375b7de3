"use client";

import { useEffect } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { useTranslations } from "next-intl";
import { api } from "@/lib/api/client";
import { editDeviceFormSchema } from "@/lib/devices/schema";
import { Dialog, DialogContent, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { useSubmit } from "@/components/ui/use-submit";
import { deviceKeys, type UserDevice } from "./api";
import { useApiErrorText } from "./errors";

interface EditDeviceDialogProps {
  username: string;
  device: UserDevice | null;
  onOpenChange: (open: boolean) => void;
}

type Values = z.input<typeof editDeviceFormSchema>;
type Parsed = z.output<typeof editDeviceFormSchema>;

/** Name, description and public key of a user device (PUT /device/{id}). */
export function EditDeviceDialog({ username, device, onOpenChange }: EditDeviceDialogProps) {
  const t = useTranslations("devices.edit");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const form = useForm<Values, unknown, Parsed>({
    resolver: zodResolver(editDeviceFormSchema),
    mode: "onBlur",
    defaultValues: { name: "", description: "", wireguard_pubkey: "" },
  });

  useEffect(() => {
    if (device) form.reset({ name: device.name, description: device.description ?? "", wireguard_pubkey: device.wireguard_pubkey });
  }, [device, form]);

  const save = useSubmit(form, {
    mutationFn: (v) => api.put(`/device/${device!.id}`, v),
    success: (_, v) => t("saved", { name: v.name }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: deviceKeys.user(username) });
      onOpenChange(false);
    },
    errorText,
    failure: t("failed"),
  });
  const { errorOf } = save;
  const keyChanged = device && (form.watch("wireguard_pubkey") ?? "").trim() !== device.wireguard_pubkey;

  return (
    <Dialog open={!!device} onOpenChange={(o) => !save.pending && onOpenChange(o)}>
      <DialogContent title={t("title", { name: device?.name ?? "" })} description={t("description")} className="max-w-lg">
        <form
          noValidate
          data-testid="edit-device-form"
          onSubmit={save.onSubmit}
          className="flex flex-col gap-4"
        >
          <Field label={t("name")} error={errorOf("name")}>
            <Input autoComplete="off" data-testid="edit-device-name" {...form.register("name")} />
          </Field>
          <Field label={t("descriptionLabel")} error={errorOf("description")}>
            <Textarea rows={2} {...form.register("description")} />
          </Field>
          <Field label={t("publicKey")} error={errorOf("wireguard_pubkey")} hint={keyChanged ? t("keyChangeHint") : undefined}>
            <Input className="font-mono text-xs" autoComplete="off" spellCheck={false} {...form.register("wireguard_pubkey")} />
          </Field>
          <DialogFormFooter submitLabel={t("save")} pending={save.pending} submitTestId="edit-device-save" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
