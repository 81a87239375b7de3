"use client";

import { useEffect } from "react";
import { useTranslations } from "next-intl";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { api } from "@/lib/api/client";
import type { UserInfo } from "@/lib/api/types";
import { passwordSchema, requiredOrType, V } from "@/lib/validation";
import { useValidationMessages } from "@/components/forms/messages";
import { displayName } from "@/components/shell/user-avatar";
import { Dialog, DialogContent, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "./server-errors";
import { userPath } from "./queries";

const MISMATCH = "mismatch";

const selfSchema = z
  .object({
    old_password: z.string(requiredOrType).min(1, { error: V.required }),
    new_password: passwordSchema,
    confirm: z.string(requiredOrType).min(1, { error: V.required }),
  })
  .refine((v) => v.new_password === v.confirm, { path: ["confirm"], error: MISMATCH });

const adminSchema = z
  .object({
    old_password: z.string().optional(),
    new_password: passwordSchema,
    confirm: z.string(requiredOrType).min(1, { error: V.required }),
  })
  .refine((v) => v.new_password === v.confirm, { path: ["confirm"], error: MISMATCH });

type Values = { old_password?: string; new_password: string; confirm: string };

interface ChangePasswordDialogProps {
  user: UserInfo;
  /** The signed-in user's own password (old + new) rather than an admin setting another's. */
  self: boolean;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/**
 * Self: PUT /user/change_password {old_password, new_password}.
 * Admin for someone else: PUT /user/{username}/password {new_password} (their sessions end).
 */
export function ChangePasswordDialog({ user, self, open, onOpenChange }: ChangePasswordDialogProps) {
  const t = useTranslations("users.password");
  const { fromKey } = useValidationMessages();
  const serverError = useServerError();

  const form = useForm<Values>({
    resolver: zodResolver(self ? selfSchema : adminSchema),
    mode: "onTouched",
    defaultValues: { old_password: "", new_password: "", confirm: "" },
  });
  const { errors } = form.formState;

  useEffect(() => {
    if (open) form.reset({ old_password: "", new_password: "", confirm: "" });
  }, [open, form]);

  const save = useSubmit(form, {
    mutationFn: (v) =>
      self
        ? api.put("/user/change_password", { old_password: v.old_password, new_password: v.new_password })
        : api.put(`${userPath(user.username)}/password`, { new_password: v.new_password }),
    success: () => (self ? t("changedSelf") : t("changed", { name: displayName(user) })),
    onSuccess: () => onOpenChange(false),
    errorText: serverError,
    failure: t("failed"),
    fields: ["old_password", "new_password"],
  });

  const message = (key: string | undefined) => (key === MISMATCH ? t("mismatch") : fromKey(key));

  return (
    <Dialog open={open} onOpenChange={(next) => !save.pending && onOpenChange(next)}>
      <DialogContent
        data-testid="change-password-dialog"
        title={self ? t("titleSelf") : t("title", { name: displayName(user) })}
        description={self ? t("descriptionSelf") : t("description")}
      >
        <form
          noValidate
          onSubmit={save.onSubmit}
          className="flex flex-col gap-4"
        >
          {/* Lets password managers file the new password under the right account. */}
          <input type="text" autoComplete="username" value={user.username} readOnly hidden />
          {self && (
            <Field label={t("old")} error={message(errors.old_password?.message)}>
              <Input type="password" autoComplete="current-password" data-testid="password-old" {...form.register("old_password")} />
            </Field>
          )}
          <Field label={t("new")} error={message(errors.new_password?.message)} hint={t("rules")}>
            <Input type="password" autoComplete="new-password" data-testid="password-new" {...form.register("new_password")} />
          </Field>
          <Field label={t("confirm")} error={message(errors.confirm?.message)}>
            <Input type="password" autoComplete="new-password" data-testid="password-confirm" {...form.register("confirm")} />
          </Field>
          <DialogFormFooter submitLabel={t("submit")} pending={save.pending} submitTestId="password-submit" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
