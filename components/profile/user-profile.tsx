"use client";

import { useState, type ReactNode } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { ArrowLeft, KeyRound, Pencil, ShieldCheck, ShieldOff, UserX, UsersRound } from "lucide-react";
import { ApiBadRequestError } from "@/lib/api/client";
import type { UserInfo } from "@/lib/api/types";
import { useCurrentUser } from "@/components/auth/use-current-user";
import { displayName, UserAvatar } from "@/components/shell/user-avatar";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { InlineError } from "@/components/ui/inline-error";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { ChangePasswordDialog } from "@/components/users/change-password-dialog";
import { useUserDetails } from "@/components/users/queries";
import { UserActionsMenu } from "@/components/users/user-actions";
import { MfaSection } from "./mfa-section";
import { AuthorizedApps } from "@/components/openid/authorized-apps";
import { UserDevices } from "@/components/devices/user-devices";
import { ProfileForm } from "./profile-form";
import { ApiTokensSection } from "./api-tokens";
import { AuthKeysSection } from "./auth-keys";

function Detail({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="grid gap-1 py-2.5 sm:grid-cols-[140px_1fr] sm:gap-4">
      <dt className="text-sm text-fg-muted">{label}</dt>
      <dd className="min-w-0 break-words text-sm text-fg">{children}</dd>
    </div>
  );
}

function Identity({ user, actions }: { user: UserInfo; actions?: ReactNode }) {
  const t = useTranslations("profile");
  return (
    <Card className="flex flex-wrap items-center gap-4 p-4" data-testid="profile-identity">
      <UserAvatar user={user} size={48} />
      <div className="min-w-0 flex-1 basis-40">
        <p className="truncate text-lg font-semibold" data-testid="profile-name">
          {displayName(user)}
        </p>
        <p className="truncate font-mono text-xs text-fg-muted">{user.username}</p>
      </div>
      <div className="flex flex-wrap items-center gap-2">
        {user.is_admin && <Badge tone="accent">{t("admin")}</Badge>}
        <Badge tone={user.is_active ? "success" : "error"} data-testid="profile-status">
          {user.is_active ? t("active") : t("disabled")}
        </Badge>
        <Badge tone={user.mfa_enabled ? "success" : "neutral"}>
          {user.mfa_enabled ? <ShieldCheck aria-hidden /> : <ShieldOff aria-hidden />}
          {user.mfa_enabled ? t("mfaBadgeOn") : t("mfaBadgeOff")}
        </Badge>
        {actions}
      </div>
    </Card>
  );
}

function ProfileSkeleton() {
  return (
    <div className="flex flex-col gap-4" aria-hidden data-testid="profile-skeleton">
      <Skeleton className="h-20 w-full rounded-lg" />
      <div className="grid gap-4 lg:grid-cols-2">
        <Skeleton className="h-72 rounded-lg" />
        <Skeleton className="h-72 rounded-lg" />
      </div>
    </div>
  );
}

interface ProfileBodyProps {
  user: UserInfo;
  self: boolean;
  /** The viewer is an admin. */
  admin: boolean;
}

function ProfileBody({ user, self, admin }: ProfileBodyProps) {
  const t = useTranslations("profile");
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [passwordOpen, setPasswordOpen] = useState(false);
  const none = <span className="text-fg-subtle">{t("notSet")}</span>;

  return (
    <div className="flex flex-col gap-4">
      <Identity
        user={user}
        actions={
          admin && !self ? (
            <UserActionsMenu
              user={user}
              isSelf={false}
              showEdit={false}
              label={t("actions")}
              onDeleted={() => router.replace("/users")}
            />
          ) : undefined
        }
      />
      {!user.is_active && (
        <p role="status" className="flex items-center gap-2 rounded-lg border border-error/30 bg-error-subtle px-4 py-3 text-sm">
          <UserX className="size-4 shrink-0 text-error" aria-hidden />
          {t("disabledNotice")}
        </p>
      )}
      <div className="grid items-start gap-4 lg:grid-cols-2">
        <Card>
          <CardHeader
            title={t("details")}
            description={editing ? (admin ? t("editDescriptionAdmin") : t("editDescription")) : undefined}
            action={
              !editing && (
                <Button variant="secondary" size="sm" onClick={() => setEditing(true)} data-testid="profile-edit">
                  <Pencil aria-hidden />
                  {t("edit")}
                </Button>
              )
            }
          />
          <CardBody className={editing ? undefined : "py-1"}>
            {editing ? (
              <ProfileForm user={user} self={self} admin={admin} onDone={() => setEditing(false)} />
            ) : (
              <dl className="divide-y divide-border" data-testid="profile-details">
                <Detail label={t("firstName")}>{user.first_name || none}</Detail>
                <Detail label={t("lastName")}>{user.last_name || none}</Detail>
                <Detail label={t("username")}>
                  <span className="font-mono">{user.username}</span>
                </Detail>
                <Detail label={t("email")}>{user.email || none}</Detail>
                <Detail label={t("phone")}>
                  <span data-testid="profile-phone-value">{user.phone || none}</span>
                </Detail>
              </dl>
            )}
          </CardBody>
        </Card>
        <div className="flex flex-col gap-4">
          <AuthorizedApps user={user} />
          <Card>
            <CardHeader title={t("groups")} description={admin && !editing ? t("groupsEditHint") : undefined} />
            <CardBody>
              {user.groups.length > 0 ? (
                <ul className="flex flex-wrap gap-2" data-testid="profile-groups-list">
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
                <p className="text-sm text-fg-muted">{self ? t("noGroups") : t("noGroupsOther")}</p>
              )}
            </CardBody>
          </Card>
          <Card>
            <CardHeader title={t("security")} />
            <CardBody className="flex flex-col gap-4">
              <div className="flex flex-wrap items-center justify-between gap-3">
                <div className="min-w-0">
                  <p className="text-sm font-medium text-fg">{t("password")}</p>
                  <p className="text-xs text-fg-muted">
                    {self ? t("passwordDescription") : t("passwordDescriptionOther")}
                  </p>
                </div>
                <Button variant="secondary" size="sm" onClick={() => setPasswordOpen(true)} data-testid="profile-change-password">
                  <KeyRound aria-hidden />
                  {t("changePassword")}
                </Button>
              </div>
              {!self && (
                <div className="border-t border-border pt-4">
                  <MfaSection user={user} self={self} admin={admin} />
                </div>
              )}
            </CardBody>
          </Card>
        </div>
      </div>
      {self && (
        // MFA section: components/mfa/mfa-settings.tsx (the signed-in user's own methods).
        <Card>
          <CardBody>
            <MfaSection user={user} self admin={admin} />
          </CardBody>
        </Card>
      )}
      <UserDevices username={user.username} self={self} />
      <AuthKeysSection username={user.username} admin={admin} />
      {/* API tokens are for admins only: an admin viewing an admin's profile (their own included). */}
      {admin && user.is_admin && <ApiTokensSection username={user.username} />}
      <ChangePasswordDialog user={user} self={self} open={passwordOpen} onOpenChange={setPasswordOpen} />
    </div>
  );
}

/** A user's profile: view and edit (My Profile, or an admin looking at someone). */
export function UserProfile({ username, self }: { username: string; self: boolean }) {
  const t = useTranslations("profile");
  const me = useCurrentUser();
  // One's own account comes from GET /me (also reachable while MFA setup is still required).
  const details = useUserDetails(username, !self);
  const admin = me.data?.is_admin ?? false;

  const user = self ? me.data : details.data?.user;
  const name = user ? displayName(user) : username;

  const header = self ? (
    <PageHeader title={t("title")} description={t("description")} />
  ) : (
    <>
      <Link
        href="/users"
        className="mb-3 inline-flex items-center gap-1.5 rounded-sm text-sm text-fg-muted hover:text-fg focus-visible:outline-2"
      >
        <ArrowLeft className="size-4" aria-hidden />
        {t("backToUsers")}
      </Link>
      <PageHeader title={name} description={t("descriptionOther")} />
    </>
  );

  if (!self && details.isError) {
    const err = details.error;
    const status = err instanceof ApiBadRequestError ? err.status : 0;
    return (
      <>
        {header}
        {status === 404 ? (
          <EmptyState
            icon={UserX}
            title={t("notFound", { username })}
            description={t("notFoundHint")}
            action={
              <Button asChild variant="secondary">
                <Link href="/users">{t("backToUsers")}</Link>
              </Button>
            }
          />
        ) : status === 403 ? (
          <EmptyState icon={ShieldOff} title={t("forbidden")} description={t("forbiddenHint")} />
        ) : (
          <InlineError
            message={t("loadFailed")}
            detail={err.message}
            onRetry={() => details.refetch()}
            retrying={details.isFetching}
          />
        )}
      </>
    );
  }

  return (
    <>
      {header}
      {user ? <ProfileBody user={user} self={self} admin={admin} /> : <ProfileSkeleton />}
    </>
  );
}
