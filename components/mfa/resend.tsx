"use client";

import { useCallback, useEffect, useState } from "react";
import { RotateCw } from "lucide-react";
import { useTranslations } from "next-intl";
import { Button } from "@/components/ui/button";

/** The server refuses a new e-mail code within 30 s of the last one. */
export const RESEND_SECONDS = 30;

/** A countdown in whole seconds, started after each code is sent. */
export function useCooldown(seconds = RESEND_SECONDS) {
  const [until, setUntil] = useState(0);
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (until <= now) return;
    const id = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(id);
  }, [until, now]);
  const start = useCallback(() => {
    const t = Date.now();
    setNow(t);
    setUntil(t + seconds * 1000);
  }, [seconds]);
  return { left: Math.max(0, Math.ceil((until - now) / 1000)), start };
}

interface ResendButtonProps {
  seconds: number;
  loading?: boolean;
  onClick: () => void;
  className?: string;
}

export function ResendButton({ seconds, loading, onClick, className }: ResendButtonProps) {
  const t = useTranslations("mfa.email");
  return (
    <Button
      variant="ghost"
      data-testid="email-resend"
      disabled={seconds > 0}
      loading={loading}
      onClick={onClick}
      className={className}
    >
      <RotateCw aria-hidden />
      {seconds > 0 ? t("resendIn", { seconds }) : t("resend")}
    </Button>
  );
}
