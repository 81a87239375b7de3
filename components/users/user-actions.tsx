"use client";

import { useState } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Ellipsis, KeyRound, Mail, MonitorSmartphone, Pencil, ShieldOff, Trash2, UserCheck, UserPlus, UserX } from "lucide-react";
import { api } from "@/lib/api/client";
import type { UserInfo } from "@/lib/api/types";
import { currentUserQuery } from "@/components/auth/use-current-user";
import { displayName } from "@/components/shell/user-avatar";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";
import { toast } from "@/components/ui/toaster";
import { EnrollmentTokenDialog, type TokenKind } from "@/components/enrollment/token-dialog";
import { ChangePasswordDialog } from "./change-password-dialog";
import { userKeys, userPath, userUpdateBody } from "./queries";
import { isSmtpNotConfigured, useServerError } from "./server-errors";

type Confirm = "disable" | "delete" | "mfa" | "reset" | null;

/** The changes an admin makes to an account, each ending in a toast and a refreshed list. */
export function useUserMutations(user: UserInfo) {
  const t = useTranslations("users.actions");
  const client = useQueryClient();
  const serverError = useServerError();
  const name = displayName(user);

  async function refresh() {
    await Promise.all([
      client.invalidateQueries({ queryKey: userKeys.all }),
      client.invalidateQueries({ queryKey: userKeys.details(user.username) }),
      client.invalidateQueries({ queryKey: currentUserQuery.queryKey }),
    ]);
  }

  const fail = (title: string) => (err: unknown) => {
    toast.error(title, { subMessage: serverError(err) });
    throw err;
  };

  return {
    setActive: useMutation({
      mutationFn: (active: boolean) => api.put(userPath(user.username), userUpdateBody(user, { is_active: active })),
      onSuccess: (_d, active) => toast.success(active ? t("enabled", { name }) : t("disabled", { name })),
      onError: (err, active) => toast.error(active ? t("enableFailed") : t("disableFailed"), { subMessage: serverError(err) }),
      onSettled: refresh,
    }),
    remove: async () => {
      await api.delete(userPath(user.username)).catch(fail(t("deleteFailed")));
      toast.success(t("deleted", { name }));
      client.removeQueries({ queryKey: userKeys.details(user.username) });
      await client.invalidateQueries({ queryKey: userKeys.all });
    },
    disableMfa: async () => {
      await api.delete(`${userPath(user.username)}/mfa`).catch(fail(t("mfaFailed")));
      toast.success(t("mfaDisabled", { name }));
      await refresh();
    },
    resetPassword: async () => {
      await api.post(`${userPath(user.username)}/reset_password`).catch((err: unknown) => {
        // The SMTP hint stays a little longer: it asks the admin to go elsewhere first.
        toast.error(
          t("resetFailed"),
          isSmtpNotConfigured(err) ? { subMessage: t("smtpMissing"), lifetime: 12_000 } : { subMessage: serverError(err) },
        );
        throw err;
      });
      toast.success(t("resetSent", { email: user.email }));
    },
  };
}

interface UserActionsMenuProps {
  user: UserInfo;
  /** The signed-in admin's own row: no disabling or deleting oneself here. */
  isSelf: boolean;
  /** Offer "Edit" (the list); the profile page is the editor itself. */
  showEdit?: boolean;
  /** After the account is gone (the profile page leaves for the list). */
  onDeleted?: () => void;
  align?: "start" | "end";
  /** A labelled button instead of the icon (page headers). */
  label?: string;
}

/** The row actions of a user (docs/ui.md Table: row actions menu), with their confirmations and dialogs. */
export function UserActionsMenu({ user, isSelf, showEdit = true, onDeleted, align = "end", label }: UserActionsMenuProps) {
  const t = useTranslations("users.actions");
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [passwordOpen, setPasswordOpen] = useState(false);
  const [tokenKind, setTokenKind] = useState<TokenKind | null>(null);
  const m = useUserMutations(user);
  const name = displayName(user);

  return (
    <>
      <DropdownMenu modal={false}>
        <DropdownMenuTrigger asChild>
          {label ? (
            <Button variant="secondary" data-testid={`user-actions-${user.username}`}>
              {label}
              <Ellipsis aria-hidden />
            </Button>
          ) : (
            <Button
              variant="ghost"
              size="icon"
              aria-label={t("open", { name })}
              data-testid={`user-actions-${user.username}`}
              loading={m.setActive.isPending}
            >
              <Ellipsis aria-hidden />
            </Button>
          )}
        </DropdownMenuTrigger>
        <DropdownMenuContent align={align} className="min-w-52">
          {showEdit && (
            <DropdownMenuItem asChild>
              <Link href={`/users/${encodeURIComponent(user.username)}`} prefetch={false} data-testid="action-edit">
                <Pencil aria-hidden />
                {t("edit")}
              </Link>
            </DropdownMenuItem>
          )}
          {user.is_active ? (
            <DropdownMenuItem disabled={isSelf} onSelect={() => setConfirm("disable")} data-testid="action-disable">
              <UserX aria-hidden />
              {t("disable")}
            </DropdownMenuItem>
          ) : (
            <DropdownMenuItem onSelect={() => m.setActive.mutate(true)} data-testid="action-enable">
              <UserCheck aria-hidden />
              {t("enable")}
            </DropdownMenuItem>
          )}
          <DropdownMenuItem onSelect={() => setPasswordOpen(true)} data-testid="action-password">
            <KeyRound aria-hidden />
            {t("changePassword")}
          </DropdownMenuItem>
          {!isSelf && (
            <DropdownMenuItem disabled={!user.is_active} onSelect={() => setConfirm("reset")} data-testid="action-reset">
              <Mail aria-hidden />
              {t("resetPassword")}
            </DropdownMenuItem>
          )}
          {user.enrolled ? (
            <DropdownMenuItem disabled={!user.is_active} onSelect={() => setTokenKind("desktop")} data-testid="action-desktop">
              <MonitorSmartphone aria-hidden />
              {t("desktopActivation")}
            </DropdownMenuItem>
          ) : (
            <DropdownMenuItem disabled={!user.is_active} onSelect={() => setTokenKind("enrollment")} data-testid="action-enrollment">
              <UserPlus aria-hidden />
              {t("startEnrollment")}
            </DropdownMenuItem>
          )}
          {user.mfa_enabled && (
            <DropdownMenuItem onSelect={() => setConfirm("mfa")} data-testid="action-mfa">
              <ShieldOff aria-hidden />
              {t("disableMfa")}
            </DropdownMenuItem>
          )}
          <DropdownMenuSeparator />
          <DropdownMenuItem danger disabled={isSelf} onSelect={() => setConfirm("delete")} data-testid="action-delete">
            <Trash2 aria-hidden />
            {t("delete")}
          </DropdownMenuItem>
        </DropdownMenuContent>
      </DropdownMenu>

      {/* Dialogs mount only while open: a page of 50 rows stays light. */}
      {confirm === "disable" && (
        <ConfirmDialog
          open
          onOpenChange={(o) => !o && setConfirm(null)}
          title={t("disableTitle", { name })}
          description={t("disableDescription", { username: user.username })}
          confirmLabel={t("disable")}
          danger
          onConfirm={() => m.setActive.mutateAsync(false)}
        />
      )}
      {confirm === "delete" && (
        <ConfirmDialog
          open
          onOpenChange={(o) => !o && setConfirm(null)}
          title={t("deleteTitle", { name })}
          description={t("deleteDescription", { username: user.username })}
          confirmLabel={t("delete")}
          danger
          onConfirm={async () => {
            await m.remove();
            onDeleted?.();
          }}
        />
      )}
      {confirm === "mfa" && (
        <ConfirmDialog
          open
          onOpenChange={(o) => !o && setConfirm(null)}
          title={t("mfaTitle", { name })}
          description={t("mfaDescription")}
          confirmLabel={t("disableMfa")}
          danger
          onConfirm={m.disableMfa}
        />
      )}
      {confirm === "reset" && (
        <ConfirmDialog
          open
          onOpenChange={(o) => !o && setConfirm(null)}
          title={t("resetTitle", { name })}
          description={t("resetDescription", { email: user.email })}
          confirmLabel={t("resetConfirm")}
          onConfirm={m.resetPassword}
        />
      )}
      {tokenKind && <EnrollmentTokenDialog user={user} kind={tokenKind} onOpenChange={(o) => !o && setTokenKind(null)} />}
      {passwordOpen && <ChangePasswordDialog user={user} self={isSelf} open onOpenChange={setPasswordOpen} />}
    </>
  );
}
