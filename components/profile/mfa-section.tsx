"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { ShieldCheck, ShieldOff } from "lucide-react";
import type { UserInfo } from "@/lib/api/types";
import { displayName } from "@/components/shell/user-avatar";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { MfaSettings } from "@/components/mfa/mfa-settings";
import { useUserMutations } from "@/components/users/user-actions";

const MFA_METHOD_KEY = {
  OneTimePassword: "totp",
  Email: "email",
  Webauthn: "webauthn",
  None: "none",
} as const;

/** MFA on or off and the default method. */
function MfaStatus({ user }: { user: UserInfo }) {
  const t = useTranslations("profile");
  return (
    <div className="min-w-0">
      <p className="text-sm font-medium text-fg">{t("mfa")}</p>
      <div className="mt-1 flex flex-wrap items-center gap-2 text-xs text-fg-muted">
        <Badge tone={user.mfa_enabled ? "success" : "neutral"} data-testid="profile-mfa-status">
          {user.mfa_enabled ? <ShieldCheck aria-hidden /> : <ShieldOff aria-hidden />}
          {user.mfa_enabled ? t("mfaOn") : t("mfaOff")}
        </Badge>
        {user.mfa_enabled && (
          <span>
            {t("mfaMethod")}: {t(`mfaMethods.${MFA_METHOD_KEY[user.mfa_method]}`)}
          </span>
        )}
      </div>
    </div>
  );
}

/** An admin looking at someone else: the status and "Disable MFA". */
function AdminMfa({ user }: { user: UserInfo }) {
  const t = useTranslations("profile");
  const [confirm, setConfirm] = useState(false);
  const m = useUserMutations(user);
  return (
    <div className="flex flex-wrap items-center justify-between gap-3">
      <MfaStatus user={user} />
      {user.mfa_enabled && (
        <Button variant="secondary" size="sm" onClick={() => setConfirm(true)} data-testid="profile-disable-mfa">
          <ShieldOff aria-hidden />
          {t("disableMfa")}
        </Button>
      )}
      <ConfirmDialog
        open={confirm}
        onOpenChange={setConfirm}
        title={t("disableMfaTitle", { name: displayName(user) })}
        description={t("disableMfaDescription")}
        confirmLabel={t("disableMfa")}
        danger
        onConfirm={m.disableMfa}
      />
    </div>
  );
}

interface MfaSectionProps {
  user: UserInfo;
  self: boolean;
  admin: boolean;
}

/**
 * The MFA part of a profile: one's own methods are managed with components/mfa/mfa-settings.tsx;
 * an admin looking at someone else sees the status and may switch MFA off.
 */
export function MfaSection({ user, self, admin }: MfaSectionProps) {
  if (self) return <MfaSettings user={user} self />;
  if (admin) return <AdminMfa user={user} />;
  return <MfaStatus user={user} />;
}
