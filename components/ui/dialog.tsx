"use client";

import { forwardRef, type ComponentPropsWithoutRef, type ElementRef, type HTMLAttributes, type ReactNode } from "react";
import * as DialogPrimitive from "@radix-ui/react-dialog";
import { X } from "lucide-react";
import { useTranslations } from "next-intl";
import { Button } from "./button";
import { cn } from "./cn";

export const Dialog = DialogPrimitive.Root;
export const DialogTrigger = DialogPrimitive.Trigger;
export const DialogClose = DialogPrimitive.Close;

interface DialogContentProps extends Omit<ComponentPropsWithoutRef<typeof DialogPrimitive.Content>, "title"> {
  title: ReactNode;
  description?: ReactNode;
  /** Hide the corner close button (e.g. when the footer already offers Cancel). */
  hideClose?: boolean;
}

/** Centered modal: traps focus, closes with Escape, always titled for screen readers. */
export const DialogContent = forwardRef<ElementRef<typeof DialogPrimitive.Content>, DialogContentProps>(
  function DialogContent({ className, title, description, hideClose, children, ...props }, ref) {
    const t = useTranslations("common");
    return (
      <DialogPrimitive.Portal>
        <DialogPrimitive.Overlay className="fixed inset-0 z-50 bg-overlay animate-fade-in" />
        <DialogPrimitive.Content
          ref={ref}
          // Without a description Radix expects an explicit "no description".
          {...(description ? {} : { "aria-describedby": undefined })}
          className={cn(
            "fixed left-1/2 top-1/2 z-50 flex max-h-[calc(100dvh-32px)] w-[calc(100vw-32px)] max-w-md -translate-x-1/2 -translate-y-1/2 flex-col",
            "overflow-auto rounded-lg border border-border bg-surface p-6 shadow-popover animate-fade-in focus:outline-none",
            className,
          )}
          {...props}
        >
          <div className="mb-4 flex flex-col gap-1 pr-8">
            <DialogPrimitive.Title className="text-lg font-semibold text-fg">{title}</DialogPrimitive.Title>
            {description && (
              <DialogPrimitive.Description className="text-sm text-fg-muted">{description}</DialogPrimitive.Description>
            )}
          </div>
          {children}
          {!hideClose && (
            <DialogPrimitive.Close
              aria-label={t("close")}
              className="absolute right-4 top-4 rounded-sm p-1 text-fg-muted hover:bg-hover hover:text-fg focus-visible:outline-2"
            >
              <X className="size-4" aria-hidden />
            </DialogPrimitive.Close>
          )}
        </DialogPrimitive.Content>
      </DialogPrimitive.Portal>
    );
  },
);

export function DialogFooter({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cn("mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end", className)} {...props} />;
}

/** The footer of a form in a dialog: Cancel (closes, off while sending) and the submit button with progress. */
export function DialogFormFooter({ submitLabel, pending, submitTestId }: { submitLabel: ReactNode; pending: boolean; submitTestId?: string }) {
  const t = useTranslations("common");
  return (
    <DialogFooter className="mt-2">
      <DialogClose asChild>
        <Button variant="secondary" disabled={pending}>
          {t("cancel")}
        </Button>
      </DialogClose>
      <Button type="submit" loading={pending} data-testid={submitTestId}>
        {submitLabel}
      </Button>
    </DialogFooter>
  );
}
