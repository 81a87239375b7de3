"use client";

import { AlertCircle, RotateCw } from "lucide-react";
import { useTranslations } from "next-intl";
import { Button } from "./button";
import { cn } from "./cn";

interface InlineErrorProps {
  /** Already translated text saying what failed. */
  message: string;
  /** The server's reason, when there is one. */
  detail?: string;
  onRetry: () => void;
  retrying?: boolean;
  className?: string;
}

/** Shown in place of content whose call failed, with a retry. */
export function InlineError({ message, detail, onRetry, retrying, className }: InlineErrorProps) {
  const t = useTranslations("common");
  return (
    <div
      role="alert"
      className={cn(
        "flex flex-wrap items-center gap-3 rounded-lg border border-error/30 bg-error-subtle px-4 py-3 text-sm",
        className,
      )}
    >
      <AlertCircle className="size-4 shrink-0 text-error" aria-hidden />
      <div className="min-w-0 flex-1">
        <p className="font-medium text-fg">{message}</p>
        {detail && <p className="text-xs text-fg-muted">{detail}</p>}
      </div>
      <Button variant="secondary" size="sm" onClick={onRetry} loading={retrying}>
        <RotateCw aria-hidden />
        {t("retry")}
      </Button>
    </div>
  );
}
