"use client";

import { useEffect, useRef, useState } from "react";
import { Check, Copy } from "lucide-react";
import { useTranslations } from "next-intl";
import { Button, type ButtonProps } from "@/components/ui/button";
import { toast } from "@/components/ui/toaster";

/** Copy to the clipboard and say "Copied"; explains when the page is not a secure context. */
export async function copyText(text: string, t: (key: "insecureContext" | "clipboardFailed") => string): Promise<boolean> {
  if (typeof window === "undefined" || !window.isSecureContext || !navigator.clipboard) {
    toast.error(t("insecureContext"));
    return false;
  }
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    toast.error(t("clipboardFailed"));
    return false;
  }
}

interface CopyButtonProps extends Omit<ButtonProps, "onClick"> {
  text: string;
  /** Visible label; an icon-only button when omitted (then `aria-label` names it). */
  label?: string;
}

export function CopyButton({ text, label, variant = "secondary", size = "sm", ...props }: CopyButtonProps) {
  const t = useTranslations("mfa.copy");
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    if (!(await copyText(text, (k) => t(k)))) return;
    setCopied(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), 2000);
  }

  return (
    <Button
      variant={variant}
      size={size}
      onClick={copy}
      aria-label={label ? undefined : copied ? t("copied") : t("copy")}
      {...props}
    >
      {copied ? <Check className="text-success" aria-hidden /> : <Copy aria-hidden />}
      {label && <span aria-live="polite">{copied ? t("copied") : label}</span>}
    </Button>
  );
}
