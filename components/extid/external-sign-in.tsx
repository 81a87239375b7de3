"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useQuery } from "@tanstack/react-query";
import { LogIn } from "lucide-react";
import { api } from "@/lib/api/client";
import { Button } from "@/components/ui/button";
import { toast } from "@/components/ui/toaster";

type AuthInfo = { url: string; button_display_name?: string };

/**
 * The login page's "Sign in with …" button, shown when an external OpenID provider is set
 * (GET /openid/auth_info answers). The click asks for a fresh authorization URL, so the sealed
 * state cookie is new however long the page stood open.
 */
export function ExternalSignIn() {
  const t = useTranslations("login.external");
  const [going, setGoing] = useState(false);
  const info = useQuery({ queryKey: ["openid", "auth_info"], queryFn: () => api.get<AuthInfo>("/openid/auth_info"), retry: false, staleTime: Infinity });
  if (!info.data) return null;
  const label = info.data.button_display_name ? t("signInWith", { name: info.data.button_display_name }) : t("signInWithProvider");

  async function go() {
    setGoing(true);
    try {
      const fresh = await api.get<AuthInfo>("/openid/auth_info");
      window.location.assign(fresh.url);
    } catch {
      setGoing(false);
      toast.error(t("providerUnavailable"));
    }
  }

  return (
    <div className="mt-6 flex flex-col gap-4">
      <div className="flex items-center gap-3 text-xs text-fg-muted" aria-hidden>
        <span className="h-px flex-1 bg-border" />
        {t("or")}
        <span className="h-px flex-1 bg-border" />
      </div>
      {/* Keeps the focus where it is: a blur would show "required" above and move the button away from the pointer. */}
      <Button type="button" variant="secondary" size="lg" className="w-full" loading={going} onMouseDown={(e) => e.preventDefault()} onClick={go} data-testid="login-openid">
        <LogIn aria-hidden />
        {label}
      </Button>
    </div>
  );
}
