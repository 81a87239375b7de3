"use client";

import { useTranslations } from "next-intl";
import { KeyRound, Mail, Smartphone, type LucideIcon } from "lucide-react";
import type { MfaRequired as MfaMethods } from "@/lib/api/types";
import { Button } from "@/components/ui/button";

const METHODS: { key: "totp" | "email" | "webauthn"; available: (m: MfaMethods) => boolean; icon: LucideIcon }[] = [
  { key: "totp", available: (m) => !!m.totp_available, icon: Smartphone },
  { key: "email", available: (m) => !!m.email_available, icon: Mail },
  { key: "webauthn", available: (m) => !!m.webauthn_available, icon: KeyRound },
];

/** After the password (201): names the second factors the server offered; the MFA step asks for one next. */
export function MfaRequired({ methods, onBack }: { methods: MfaMethods; onBack: () => void }) {
  const t = useTranslations("login.mfa");
  const offered = METHODS.filter((m) => m.available(methods));
  return (
    <div data-testid="login-mfa" className="flex flex-col gap-4">
      <div role="status">
        <p className="text-base font-semibold text-fg">{t("title")}</p>
        <p className="mt-1 text-sm text-fg-muted">{t("description")}</p>
      </div>
      <ul className="flex flex-col gap-2">
        {offered.map(({ key, icon: Icon }) => (
          <li key={key} className="flex items-center gap-3 rounded-md border border-border bg-subtle px-3 py-2 text-sm">
            <Icon className="size-4 text-fg-muted" aria-hidden />
            {t(`methods.${key}`)}
          </li>
        ))}
        {offered.length === 0 && <li className="text-sm text-fg-muted">{t("methods.recovery")}</li>}
      </ul>
      <Button variant="secondary" onClick={onBack}>
        {t("back")}
      </Button>
    </div>
  );
}
