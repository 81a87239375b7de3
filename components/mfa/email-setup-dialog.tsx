"use client";

import { useEffect, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { MailCheck } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { FormAlert } from "@/components/ui/form-alert";
import { mfaApi, type CodesBody } from "./api";
import { CodeForm } from "./code-form";
import { useMfaErrors } from "./errors";
import { ResendButton, useCooldown } from "./resend";

interface EmailSetupDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  email: string;
  onEnabled: (result: CodesBody) => void;
}

/** E-mail codes: send a setup code to the account's address, then type it in. */
export function EmailSetupDialog({ open, onOpenChange, email, onEnabled }: EmailSetupDialogProps) {
  const t = useTranslations("mfa.email");
  const tc = useTranslations("common");
  const { messageOf } = useMfaErrors();
  const [sent, setSent] = useState(false);
  const cooldown = useCooldown();
  const send = useMutation({
    mutationFn: mfaApi.emailInit,
    onSuccess: () => {
      setSent(true);
      cooldown.start();
    },
  });

  useEffect(() => {
    if (!open) {
      setSent(false);
      send.reset();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  async function confirm(code: string) {
    const result = await mfaApi.emailEnable(code);
    onOpenChange(false);
    onEnabled({ codes: result.codes ?? null });
  }

  const sendError = send.isError ? messageOf(send.error) : null;
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent data-testid="email-dialog" title={t("setupTitle")} description={t("setupDescription")}>
        {!sent ? (
          <>
            <p className="text-sm text-fg">
              {t.rich("willSend", { email, b: (chunk) => <span className="font-medium [overflow-wrap:anywhere]">{chunk}</span> })}
            </p>
            {sendError && (
              <FormAlert testId="email-send-error" className="mt-4">
                {sendError}
              </FormAlert>
            )}
            <DialogFooter>
              <DialogClose asChild>
                <Button variant="secondary">{tc("cancel")}</Button>
              </DialogClose>
              <Button data-testid="email-send" loading={send.isPending} onClick={() => send.mutate()}>
                {t("sendCode")}
              </Button>
            </DialogFooter>
          </>
        ) : (
          <div className="flex flex-col gap-4">
            <p role="status" className="flex items-start gap-2 text-sm text-fg">
              <MailCheck className="mt-0.5 size-4 shrink-0 text-success" aria-hidden />
              <span>{t.rich("sent", { email, b: (chunk) => <span className="font-medium [overflow-wrap:anywhere]">{chunk}</span> })}</span>
            </p>
            {sendError && <FormAlert testId="email-send-error">{sendError}</FormAlert>}
            <CodeForm
              layout="dialog"
              autoFocus
              label={t("codeLabel")}
              submitLabel={t("enable")}
              testId="email-setup-code"
              onSubmit={confirm}
              secondary={
                <ResendButton
                  seconds={cooldown.left}
                  loading={send.isPending}
                  onClick={() => send.mutate()}
                  className="sm:mr-auto"
                />
              }
            />
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}
