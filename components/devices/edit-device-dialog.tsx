"use client";

import { useEffect } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { ApiBadRequestError, api } from "@/lib/api/client";
import { useValidationMessages } from "@/components/forms/messages";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/toaster";
import { deviceKeys, type UserDevice } from "./api";
import { useApiErrorText } from "./errors";
import { editDeviceSchema, type EditDeviceValues } from "./schema";

interface EditDeviceDialogProps {
  username: string;
  device: UserDevice | null;
  onOpenChange: (open: boolean) => void;
}

const FIELDS = ["name", "description", "wireguard_pubkey"] as const;

/** Name, description and public key of a user device (PUT /device/{id}). */
export function EditDeviceDialog({ username, device, onOpenChange }: EditDeviceDialogProps) {
  const t = useTranslations("devices.edit");
  const { fromKey } = useValidationMessages();
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const form = useForm<EditDeviceValues>({
    resolver: zodResolver(editDeviceSchema),
    mode: "onBlur",
    defaultValues: { name: "", description: "", wireguard_pubkey: "" },
  });
  const { errors } = form.formState;

  useEffect(() => {
    if (device) form.reset({ name: device.name, description: device.description ?? "", wireguard_pubkey: device.wireguard_pubkey });
  }, [device, form]);

  const save = useMutation({
    mutationFn: (v: EditDeviceValues) =>
      api.put(`/device/${device!.id}`, {
        name: v.name,
        description: v.description || null,
        wireguard_pubkey: v.wireguard_pubkey,
      }),
    onSuccess: (_, v) => {
      toast.success(t("saved", { name: v.name }));
      void queryClient.invalidateQueries({ queryKey: deviceKeys.user(username) });
      onOpenChange(false);
    },
    onError: (err) => {
      const field = err instanceof ApiBadRequestError ? err.field : undefined;
      if (field && (FIELDS as readonly string[]).includes(field)) {
        form.setError(field as (typeof FIELDS)[number], { message: errorText(err) }, { shouldFocus: true });
      } else toast.error(t("failed"), { subMessage: errorText(err) });
    },
  });

  const errorOf = (name: keyof EditDeviceValues) => {
    const m = errors[name]?.message;
    return m ? fromKey(m) : undefined;
  };
  const keyChanged = device && form.watch("wireguard_pubkey").trim() !== device.wireguard_pubkey;

  return (
    <Dialog open={!!device} onOpenChange={(o) => !save.isPending && onOpenChange(o)}>
      <DialogContent title={t("title", { name: device?.name ?? "" })} description={t("description")} className="max-w-lg">
        <form
          noValidate
          data-testid="edit-device-form"
          onSubmit={form.handleSubmit((v) => !save.isPending && save.mutate(v))}
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
          <DialogFooter className="mt-2">
            <DialogClose asChild>
              <Button variant="secondary" disabled={save.isPending}>
                {t("cancel")}
              </Button>
            </DialogClose>
            <Button type="submit" loading={save.isPending} data-testid="edit-device-save">
              {t("save")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
