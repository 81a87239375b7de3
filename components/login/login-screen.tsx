"use client";

import type { ReactNode } from "react";
import { LanguageSwitch } from "@/components/i18n/language-switch";
import { useBranding } from "@/components/shell/brand";
import { SignInFrame } from "./sign-in-frame";

/**
 * The signed-out pages' frame with the branding from the essentials query (pages under the full
 * providers: enrolment, password reset, the OpenID callback). `wide` makes room for content such
 * as a device configuration with its QR code. The sign-in page renders SignInFrame itself.
 */
export function AuthFrame({ children, wide = false }: { children: ReactNode; wide?: boolean }) {
  const { name, mainLogo } = useBranding();
  return (
    <SignInFrame name={name} mainLogo={mainLogo} wide={wide} corner={<LanguageSwitch className="w-36" />}>
      {children}
    </SignInFrame>
  );
}
