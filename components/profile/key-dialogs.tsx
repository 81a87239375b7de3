"use client";

import { useEffect } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useTranslations } from "next-intl";
import type { z } from "zod";
import { keyRenameSchema } from "@/lib/apitokens/schema";
import { Dialog, DialogContent, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";

type NameIn = z.input<typeof keyRenameSchema>;
type NameOut = z.output<typeof keyRenameSchema>;

interface RenameDialogProps {
  /** The item to rename; null closes the dialog. */
  item: { id: number; name: string } | null;
  onOpenChange: (open: boolean) => void;
  /** Sends the new name (POST …/{id}/rename) and refreshes the list. */
  rename: (id: number, name: string) => Promise<unknown>;
  title: string;
  /** The success toast. */
  saved: (name: string) => string;
  testId: string;
}

/** Rename an API token or an authentication key: one name field. */
export function RenameDialog({ item, onOpenChange, rename, title, saved, testId }: RenameDialogProps) {
  const t = useTranslations("profile.keys");
  const serverError = useServerError();
  const form = useForm<NameIn, unknown, NameOut>({ resolver: zodResolver(keyRenameSchema), mode: "onTouched", defaultValues: { name: "" } });

  useEffect(() => {
    if (item) form.reset({ name: item.name });
  }, [item, form]);

  const submit = useSubmit(form, {
    mutationFn: (v) => rename(item!.id, v.name),
    success: (_r, v) => saved(v.name),
    onSuccess: () => onOpenChange(false),
    errorText: serverError,
    failure: t("renameFailed"),
    fields: ["name"],
  });

  return (
    <Dialog open={item !== null} onOpenChange={(next) => !submit.pending && onOpenChange(next)}>
      <DialogContent data-testid={testId} title={title} description={t("renameDescription", { name: item?.name ?? "" })}>
        <form noValidate onSubmit={submit.onSubmit} className="flex flex-col gap-4">
          <Field label={t("name")} error={submit.errorOf("name")}>
            <Input data-testid={`${testId}-name`} autoComplete="off" maxLength={64} autoFocus {...form.register("name")} />
          </Field>
          <DialogFormFooter submitLabel={t("save")} pending={submit.pending} submitTestId={`${testId}-submit`} />
        </form>
      </DialogContent>
    </Dialog>
  );
}
