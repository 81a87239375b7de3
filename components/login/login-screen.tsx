"use client";

import type { ReactNode } from "react";
import { LanguageSwitch } from "@/components/i18n/language-switch";
import { useEssentials } from "@/components/settings/queries";
import { useBranding } from "@/components/shell/brand";
import { LoadingScreen } from "@/components/shell/loading-screen";
import { LoginForm } from "./login-form";

/** Sign-in page: main logo and instance name above the credentials card, language switch in the corner. */
export function LoginScreen({ returnTo }: { returnTo: string | null }) {
  const essentials = useEssentials();
  const { name } = useBranding();
  if (essentials.isPending) return <LoadingScreen />;

  return (
    <AuthFrame>
      <LoginForm returnTo={returnTo} name={name} />
    </AuthFrame>
  );
}

/**
 * The signed-out pages' frame: language switch in the corner, main logo and instance name above
 * a card. `wide` makes room for content such as a device configuration with its QR code.
 */
export function AuthFrame({ children, wide = false }: { children: ReactNode; wide?: boolean }) {
  const { name, mainLogo } = useBranding();
  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex justify-end p-4">
        <LanguageSwitch className="w-36" />
      </header>
      <main className="flex flex-1 flex-col items-center px-4 pb-16 pt-4 md:justify-center md:pt-0">
        <div className={wide ? "w-full max-w-3xl" : "w-full max-w-sm"}>
          <div className="mb-8 flex flex-col items-center gap-4 text-center">
            <img src={mainLogo} alt="" className="max-h-[100px] max-w-[250px] object-contain" />
            <p className="text-sm font-medium text-fg-muted">{name}</p>
          </div>
          <div className="rounded-lg border border-border bg-surface p-6 shadow-sm md:p-8">{children}</div>
        </div>
      </main>
    </div>
  );
}
