"use client";

import { useId, useState } from "react";
import { Download, ShieldAlert } from "lucide-react";
import { useTranslations } from "next-intl";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Dialog, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { useBranding } from "@/components/shell/brand";
import { CopyButton } from "./copy-button";

interface RecoveryCodesDialogProps {
  /** The codes to show; the dialog is open while this is set. */
  codes: string[] | null;
  username: string;
  /** After the user confirmed they saved the codes. */
  onDone: () => void;
}

function download(filename: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * Recovery codes are shown once (docs/ui.md: secrets shown once say so, with copy and download) and
 * the dialog closes only after the user confirms they kept them.
 */
export function RecoveryCodesDialog({ codes, username, onDone }: RecoveryCodesDialogProps) {
  const t = useTranslations("mfa.recovery");
  const { name } = useBranding();
  const [saved, setSaved] = useState(false);
  const checkId = useId();
  const list = codes ?? [];
  const text = list.join("\n");
  const fileText = `${t("fileHeader", { name, username })}\n\n${text}\n`;

  function close() {
    if (!saved) return;
    setSaved(false);
    onDone();
  }

  return (
    <Dialog open={codes !== null} onOpenChange={(open) => !open && close()}>
      <DialogContent
        data-testid="recovery-codes-dialog"
        title={t("title")}
        description={t("description")}
        hideClose
        onEscapeKeyDown={(e) => !saved && e.preventDefault()}
        onPointerDownOutside={(e) => e.preventDefault()}
        onInteractOutside={(e) => e.preventDefault()}
        className="max-w-lg"
      >
        <p className="mb-3 flex items-start gap-2 rounded-md border border-warning/30 bg-warning-subtle px-3 py-2 text-sm text-fg">
          <ShieldAlert className="mt-0.5 size-4 shrink-0 text-warning" aria-hidden />
          {t("onlyOnce")}
        </p>
        <ol
          data-testid="recovery-codes"
          aria-label={t("listLabel")}
          className="grid grid-cols-1 gap-x-6 gap-y-1.5 rounded-md border border-border bg-subtle px-4 py-3 font-mono text-sm min-[400px]:grid-cols-2"
        >
          {list.map((code, i) => (
            <li key={code} data-testid="recovery-code" className="flex items-baseline gap-2 tabular-nums">
              <span className="w-4 select-none text-right text-xs text-fg-subtle" aria-hidden>
                {i + 1}
              </span>
              <span className="select-all text-fg">{code}</span>
            </li>
          ))}
        </ol>
        <div className="mt-3 flex flex-wrap gap-2">
          <CopyButton text={text} label={t("copyAll")} data-testid="recovery-copy" />
          <Button
            variant="secondary"
            size="sm"
            data-testid="recovery-download"
            onClick={() => download(`recovery-codes-${username}.txt`, fileText)}
          >
            <Download aria-hidden />
            {t("download")}
          </Button>
        </div>
        <div className="mt-5 flex items-start gap-2.5">
          <Checkbox
            id={checkId}
            data-testid="recovery-saved"
            checked={saved}
            onCheckedChange={(v) => setSaved(v === true)}
            className="mt-0.5"
          />
          <label htmlFor={checkId} className="text-sm text-fg">
            {t("acknowledge")}
          </label>
        </div>
        <DialogFooter>
          <Button data-testid="recovery-done" disabled={!saved} onClick={close}>
            {t("done")}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
