"use client";

import { useState, type ReactNode } from "react";
import { useTranslations } from "next-intl";
import { Button } from "./button";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "./dialog";

interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** Names the action and the object, e.g. "Delete user jdoe?". */
  title: ReactNode;
  /** States what will happen, including what else goes (devices, sessions, tokens). */
  description: ReactNode;
  confirmLabel: string;
  /** Destructive actions get the danger style. */
  danger?: boolean;
  /** May be async: the dialog shows progress and closes when it resolves; it stays open when it throws. */
  onConfirm: () => unknown;
}

export function ConfirmDialog({ open, onOpenChange, title, description, confirmLabel, danger, onConfirm }: ConfirmDialogProps) {
  const t = useTranslations("common");
  const [busy, setBusy] = useState(false);

  async function confirm() {
    setBusy(true);
    try {
      await onConfirm();
      onOpenChange(false);
    } catch {
      // The caller reports the failure (toast); the dialog stays open for another try.
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={(next) => !busy && onOpenChange(next)}>
      <DialogContent title={title} description={description} hideClose role="alertdialog">
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary" disabled={busy}>
              {t("cancel")}
            </Button>
          </DialogClose>
          <Button variant={danger ? "danger" : "primary"} loading={busy} onClick={confirm}>
            {confirmLabel}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
