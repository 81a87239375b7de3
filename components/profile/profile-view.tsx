"use client";

import type { ReactNode } from "react";
import { useTranslations } from "next-intl";
import { ShieldCheck, ShieldOff, UsersRound } from "lucide-react";
import type { UserInfo } from "@/lib/api/types";
import { useCurrentUser } from "@/components/auth/use-current-user";
import { displayName, UserAvatar } from "@/components/shell/user-avatar";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { PageHeader } from "@/components/ui/page-header";

const MFA_METHOD_KEY = {
  OneTimePassword: "totp",
  Email: "email",
  Webauthn: "webauthn",
  None: "none",
} as const;

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-2.5 sm:grid-cols-[160px_1fr] sm:gap-4">
      <dt className="text-sm text-fg-muted">{label}</dt>
      <dd className="min-w-0 break-words text-sm text-fg">{children}</dd>
    </div>
  );
}

function Identity({ user }: { user: UserInfo }) {
  const t = useTranslations("profile");
  return (
    <Card className="flex flex-wrap items-center gap-4 p-4">
      <UserAvatar user={user} size={48} />
      <div className="min-w-0 flex-1">
        <p className="truncate text-lg font-semibold">{displayName(user)}</p>
        <p className="truncate font-mono text-xs text-fg-muted">{user.username}</p>
      </div>
      <div className="flex flex-wrap gap-2">
        {user.is_admin && <Badge tone="accent">{t("admin")}</Badge>}
        <Badge tone={user.is_active ? "success" : "error"}>{user.is_active ? t("active") : t("disabled")}</Badge>
      </div>
    </Card>
  );
}

/** My Profile: the signed-in user's own account, read-only. */
export function ProfileView() {
  const t = useTranslations("profile");
  const { data: user } = useCurrentUser();
  // The console frame renders pages only once the current user is known.
  if (!user) return null;
  const none = <span className="text-fg-subtle">{t("notSet")}</span>;
  const mfaKey = MFA_METHOD_KEY[user.mfa_method];

  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <div className="flex flex-col gap-4">
        <Identity user={user} />
        <div className="grid gap-4 lg:grid-cols-2">
          <Card>
            <CardHeader title={t("details")} />
            <CardBody className="py-1">
              <dl className="divide-y divide-border">
                <Detail label={t("firstName")}>{user.first_name || none}</Detail>
                <Detail label={t("lastName")}>{user.last_name || none}</Detail>
                <Detail label={t("username")}>
                  <span className="font-mono">{user.username}</span>
                </Detail>
                <Detail label={t("email")}>{user.email || none}</Detail>
                <Detail label={t("phone")}>{user.phone || none}</Detail>
              </dl>
            </CardBody>
          </Card>
          <div className="flex flex-col gap-4">
            <Card>
              <CardHeader title={t("groups")} />
              <CardBody>
                {user.groups.length > 0 ? (
                  <ul className="flex flex-wrap gap-2">
                    {user.groups.map((g) => (
                      <li key={g}>
                        <Badge>
                          <UsersRound aria-hidden />
                          {g}
                        </Badge>
                      </li>
                    ))}
                  </ul>
                ) : (
                  <p className="text-sm text-fg-muted">{t("noGroups")}</p>
                )}
              </CardBody>
            </Card>
            <Card>
              <CardHeader title={t("security")} />
              <CardBody className="py-1">
                <dl className="divide-y divide-border">
                  <Detail label={t("mfa")}>
                    <Badge tone={user.mfa_enabled ? "success" : "neutral"}>
                      {user.mfa_enabled ? <ShieldCheck aria-hidden /> : <ShieldOff aria-hidden />}
                      {user.mfa_enabled ? t("mfaOn") : t("mfaOff")}
                    </Badge>
                  </Detail>
                  {user.mfa_enabled && <Detail label={t("mfaMethod")}>{t(`mfaMethods.${mfaKey}`)}</Detail>}
                </dl>
              </CardBody>
            </Card>
          </div>
        </div>
      </div>
    </>
  );
}
