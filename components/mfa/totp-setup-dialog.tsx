"use client";

import { useEffect, useRef, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import QRCode from "qrcode";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent } from "@/components/ui/dialog";
import { InlineError } from "@/components/ui/inline-error";
import { Skeleton } from "@/components/ui/skeleton";
import { mfaApi, type CodesBody } from "./api";
import { CodeForm } from "./code-form";
import { CopyButton } from "./copy-button";
import { useMfaErrors } from "./errors";

interface TotpSetupDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** The app is confirmed: recovery codes when MFA was turned on for the first time. */
  onEnabled: (result: CodesBody) => void;
}

/** "ABCD EFGH IJKL ..." for reading and typing; copying gives the plain secret. */
export function groupSecret(secret: string): string {
  return secret.replace(/(.{4})/g, "$1 ").trim();
}

function QrImage({ uri, alt }: { uri: string; alt: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    // Dark on white whatever the theme: scanners want the contrast.
    QRCode.toDataURL(uri, { errorCorrectionLevel: "M", margin: 2, width: 360, color: { dark: "#000000", light: "#ffffff" } })
      .then((url) => live && setSrc(url))
      .catch(() => live && setSrc(null));
    return () => {
      live = false;
    };
  }, [uri]);
  if (!src) return <Skeleton className="size-44" />;
  return <img data-testid="totp-qr" src={src} alt={alt} width={176} height={176} className="size-44 rounded-md border border-border" />;
}

/** Authenticator app: a new secret as QR code and text, confirmed with a first code. */
export function TotpSetupDialog({ open, onOpenChange, onEnabled }: TotpSetupDialogProps) {
  const t = useTranslations("mfa.totp");
  const tc = useTranslations("common");
  const { messageOf } = useMfaErrors();
  const init = useMutation({ mutationFn: mfaApi.totpInit });
  const started = useRef(false);

  // One new secret per opening (a second init would replace the one on screen).
  useEffect(() => {
    if (open && !started.current) {
      started.current = true;
      init.mutate();
    }
    if (!open) {
      started.current = false;
      init.reset();
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open]);

  async function confirm(code: string) {
    const result = await mfaApi.totpEnable(code);
    onOpenChange(false);
    onEnabled({ codes: result.codes ?? null });
  }

  const secret = init.data?.secret;
  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent data-testid="totp-dialog" title={t("setupTitle")} description={t("setupDescription")} className="max-w-lg">
        {init.isError ? (
          <InlineError message={t("initFailed")} detail={messageOf(init.error)} onRetry={() => init.mutate()} retrying={init.isPending} />
        ) : (
          <div className="flex flex-col gap-5">
            <ol className="flex flex-col gap-5 text-sm">
              <li className="flex flex-col gap-3">
                <p className="text-fg">
                  <span className="mr-1.5 font-semibold text-fg-muted">1.</span>
                  {t("stepScan")}
                </p>
                <div className="flex flex-col items-center gap-4 sm:flex-row sm:items-start">
                  {init.data ? <QrImage uri={init.data.uri} alt={t("qrAlt")} /> : <Skeleton className="size-44" />}
                  <div className="flex w-full min-w-0 flex-col gap-2">
                    <p className="text-xs text-fg-muted">{t("manualEntry")}</p>
                    {secret ? (
                      <code
                        data-testid="totp-secret"
                        className="block break-words rounded-md border border-border bg-subtle px-3 py-2 font-mono text-sm leading-relaxed text-fg"
                      >
                        {groupSecret(secret)}
                      </code>
                    ) : (
                      <Skeleton className="h-16 w-full" />
                    )}
                    <div>
                      <CopyButton text={secret ?? ""} label={t("copySecret")} disabled={!secret} data-testid="totp-copy" />
                    </div>
                  </div>
                </div>
              </li>
              <li className="flex flex-col gap-3">
                <p className="text-fg">
                  <span className="mr-1.5 font-semibold text-fg-muted">2.</span>
                  {t("stepConfirm")}
                </p>
              </li>
            </ol>
            {init.data ? (
              <CodeForm
                layout="dialog"
                label={t("codeLabel")}
                submitLabel={t("enable")}
                testId="totp-setup-code"
                onSubmit={confirm}
                secondary={
                  <DialogClose asChild>
                    <Button variant="secondary">{tc("cancel")}</Button>
                  </DialogClose>
                }
              />
            ) : (
              <Skeleton className="h-20 w-full" />
            )}
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}
