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
  /** What the action still needs chosen (a bulk action's groups or location), above the buttons. */
  children?: ReactNode;
  /** The confirm button stays off until that choice is made. */
  confirmDisabled?: boolean;
}

export function ConfirmDialog({ open, onOpenChange, title, description, confirmLabel, danger, onConfirm, children, confirmDisabled }: ConfirmDialogProps) {
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
        {children}
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary" disabled={busy}>
              {t("cancel")}
            </Button>
          </DialogClose>
          <Button variant={danger ? "danger" : "primary"} loading={busy} disabled={confirmDisabled} onClick={confirm} data-testid="confirm-action">
            {confirmLabel}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
