"use client";

import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useTranslations } from "next-intl";
import { z } from "zod";
import { KeyRound } from "lucide-react";
import { startRegistration } from "@simplewebauthn/browser";
import { renameSchema } from "@/lib/mfa/schema";
import { ApiBadRequestError } from "@/lib/api/client";
import { useValidationMessages } from "@/components/forms/messages";
import { useSubmit } from "@/components/ui/use-submit";
import { Dialog, DialogContent, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { FormAlert } from "@/components/ui/form-alert";
import { Input } from "@/components/ui/input";
import { mfaApi, type CodesBody, type SecurityKey } from "./api";
import { useMfaErrors } from "./errors";

type NameIn = z.input<typeof renameSchema>;
type NameOut = z.output<typeof renameSchema>;

function useNameForm(defaultName: string) {
  return useForm<NameIn, unknown, NameOut>({
    resolver: zodResolver(renameSchema),
    // On blur only once something was typed: an empty field left for Cancel must not shift the buttons.
    mode: "onSubmit",
    defaultValues: { name: defaultName },
  });
}

/** A refusal naming the field in the user's language, anything else as the MFA errors say it. */
function useKeyErrorText() {
  const { fromServer } = useValidationMessages();
  const { messageOf } = useMfaErrors();
  return (err: unknown) => (err instanceof ApiBadRequestError && err.field ? (fromServer(err) ?? err.msg) : messageOf(err));
}

interface AddKeyDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onAdded: (result: CodesBody) => void;
}

/** Add security key: a name, then the browser's registration ceremony, then the server's check. */
export function AddSecurityKeyDialog({ open, onOpenChange, onAdded }: AddKeyDialogProps) {
  const t = useTranslations("mfa.keys");
  const errorText = useKeyErrorText();
  const [failure, setFailure] = useState<string | null>(null);
  const [waiting, setWaiting] = useState(false);
  const form = useNameForm("");
  const { isSubmitting } = form.formState;

  useEffect(() => {
    if (open) {
      form.reset({ name: "" });
      setFailure(null);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  const { onSubmit: submit, errorOf } = useSubmit(form, {
    mutationFn: async ({ name }): Promise<CodesBody> => {
      setFailure(null);
      const optionsJSON = await mfaApi.webauthnInit();
      setWaiting(true);
      const credential = await startRegistration({ optionsJSON }).finally(() => setWaiting(false));
      const result = await mfaApi.webauthnFinish(name, credential);
      return { codes: result.codes ?? null };
    },
    onSuccess: (result) => {
      onOpenChange(false);
      onAdded(result);
    },
    errorText,
    // Anything but a refused name is said above the form: the ceremony failed, not a field.
    report: (text) => setFailure(text),
  });

  return (
    <Dialog open={open} onOpenChange={(next) => !isSubmitting && onOpenChange(next)}>
      <DialogContent data-testid="add-key-dialog" title={t("addTitle")} description={t("addDescription")}>
        <form noValidate onSubmit={submit} className="flex flex-col gap-4">
          {failure && <FormAlert testId="add-key-error">{failure}</FormAlert>}
          <Field label={t("name")} hint={t("nameHint")} error={errorOf("name")}>
            <Input
              data-testid="add-key-name"
              autoComplete="off"
              maxLength={64}
              autoFocus
              {...form.register("name", { onBlur: (e: { target: { value: string } }) => e.target.value && void form.trigger("name") })}
            />
          </Field>
          {waiting && (
            <p role="status" className="flex items-center gap-2 text-sm text-fg-muted">
              <KeyRound className="size-4 shrink-0 animate-pulse text-accent" aria-hidden />
              {t("touchKey")}
            </p>
          )}
          <DialogFormFooter submitLabel={t("register")} pending={isSubmitting} submitTestId="add-key-submit" />
        </form>
      </DialogContent>
    </Dialog>
  );
}

interface RenameKeyDialogProps {
  securityKey: SecurityKey | null;
  onOpenChange: (open: boolean) => void;
  onRename: (key: SecurityKey, name: string) => Promise<unknown>;
}

export function RenameSecurityKeyDialog({ securityKey, onOpenChange, onRename }: RenameKeyDialogProps) {
  const t = useTranslations("mfa.keys");
  const errorText = useKeyErrorText();
  const form = useNameForm(securityKey?.name ?? "");
  const { isSubmitting } = form.formState;

  useEffect(() => {
    if (securityKey) form.reset({ name: securityKey.name });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [securityKey]);

  const { onSubmit: submit, errorOf } = useSubmit(form, {
    mutationFn: ({ name }) => onRename(securityKey!, name),
    onSuccess: () => onOpenChange(false),
    ready: () => securityKey !== null,
    errorText,
    // Every refusal is about the name.
    errorField: "name",
  });

  return (
    <Dialog open={securityKey !== null} onOpenChange={(next) => !isSubmitting && onOpenChange(next)}>
      <DialogContent
        data-testid="rename-key-dialog"
        title={t("renameTitle")}
        description={t("renameDescription", { name: securityKey?.name ?? "" })}
      >
        <form noValidate onSubmit={submit} className="flex flex-col gap-4">
          <Field label={t("name")} error={errorOf("name")}>
            <Input
              data-testid="rename-key-name"
              autoComplete="off"
              maxLength={64}
              autoFocus
              {...form.register("name", { onBlur: (e: { target: { value: string } }) => e.target.value && void form.trigger("name") })}
            />
          </Field>
          <DialogFormFooter submitLabel={t("save")} pending={isSubmitting} submitTestId="rename-key-submit" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
