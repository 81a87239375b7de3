"use client";

import { useEffect, useState, type ReactNode } from "react";
import { useRouter } from "next/navigation";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { browserSupportsWebAuthn } from "@simplewebauthn/browser";
import {
  KeyRound,
  Mail,
  Pencil,
  Plus,
  ShieldCheck,
  ShieldOff,
  Smartphone,
  Star,
  Trash2,
  type LucideIcon,
} from "lucide-react";
import type { UserInfo } from "@/lib/api/types";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { RowActionsMenu } from "@/components/ui/data-table";
import { InlineError } from "@/components/ui/inline-error";
import { Skeleton } from "@/components/ui/skeleton";
import { toast } from "@/components/ui/toaster";
import {
  isMfaSetupRequired,
  METHOD_KEY,
  MFA_SETUP_PATH,
  mfaApi,
  refreshMfaData,
  securityKeysKey,
  type CodesBody,
  type MfaMethod,
  type SecurityKey,
} from "./api";
import { EmailSetupDialog } from "./email-setup-dialog";
import { useMfaErrors } from "./errors";
import { RecoveryCodesDialog } from "./recovery-codes-dialog";
import { AddSecurityKeyDialog, RenameSecurityKeyDialog } from "./security-key-dialogs";
import { TotpSetupDialog } from "./totp-setup-dialog";

type Confirm =
  | { kind: "totp" }
  | { kind: "email" }
  | { kind: "key"; key: SecurityKey }
  | { kind: "mfa" }
  | null;

interface MethodRowProps {
  icon: LucideIcon;
  title: string;
  description: ReactNode;
  configured: boolean;
  isDefault: boolean;
  /** Buttons on the right. */
  actions?: ReactNode;
  children?: ReactNode;
  testId: string;
}

function MethodRow({ icon: Icon, title, description, configured, isDefault, actions, children, testId }: MethodRowProps) {
  const t = useTranslations("mfa.settings");
  return (
    <li
      data-testid={testId}
      data-configured={configured}
      className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 gap-y-3 px-3 py-3 sm:grid-cols-[auto_minmax(0,1fr)_auto] sm:px-4"
    >
      <div
        className={cn(
          "flex size-9 shrink-0 items-center justify-center rounded-md ring-1 ring-inset",
          configured ? "bg-accent-subtle text-accent ring-accent/20" : "bg-subtle text-fg-muted ring-border",
        )}
      >
        <Icon className="size-4" aria-hidden />
      </div>
      <div className="min-w-0">
        <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
          <h3 className="text-sm font-medium text-fg">{title}</h3>
          {configured ? (
            <Badge tone="success">{t("configured")}</Badge>
          ) : (
            <Badge tone="neutral">{t("notConfigured")}</Badge>
          )}
          {isDefault && (
            <Badge tone="accent" data-testid={`${testId}-default`}>
              <Star aria-hidden />
              {t("default")}
            </Badge>
          )}
        </div>
        <p className="mt-1 text-xs text-fg-muted [overflow-wrap:anywhere]">{description}</p>
      </div>
      {actions && (
        <div className="col-start-2 flex flex-wrap items-center gap-2 sm:col-start-3 sm:row-start-1 sm:justify-end sm:self-center">
          {actions}
        </div>
      )}
      {children && <div className="col-start-2 min-w-0 sm:col-end-4">{children}</div>}
    </li>
  );
}

/**
 * My Profile → multi-factor authentication: status, default method, authenticator app, e-mail
 * codes, security keys and switching MFA off. With `self` false (an admin looking at someone
 * else) it only shows the state and the security keys: set-up is the owner's business.
 */
export function MfaSettings({ user, self }: { user: UserInfo; self: boolean }) {
  const t = useTranslations("mfa.settings");
  const tm = useTranslations("mfa.methods");
  const router = useRouter();
  const client = useQueryClient();
  const { messageOf } = useMfaErrors();
  const [dialog, setDialog] = useState<"totp" | "email" | "key" | null>(null);
  const [renaming, setRenaming] = useState<SecurityKey | null>(null);
  const [confirm, setConfirm] = useState<Confirm>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [webauthnOk, setWebauthnOk] = useState(true);
  useEffect(() => setWebauthnOk(browserSupportsWebAuthn()), []);

  const keys = useQuery({
    queryKey: securityKeysKey(user.username),
    queryFn: () => mfaApi.securityKeys(user.username),
  });
  const setupRequired = keys.isError && isMfaSetupRequired(keys.error);
  useEffect(() => {
    if (setupRequired && self) router.replace(MFA_SETUP_PATH);
  }, [setupRequired, self, router]);

  const keyList = keys.data ?? [];
  const has: Record<MfaMethod, boolean> = {
    OneTimePassword: user.totp_enabled,
    Email: user.email_mfa_enabled,
    Webauthn: keyList.length > 0,
  };
  const configuredCount = Object.values(has).filter(Boolean).length;
  const defaultMethod = user.mfa_enabled && user.mfa_method !== "None" ? user.mfa_method : null;
  const refresh = () => refreshMfaData(client, user.username);

  function enabled(what: "totp" | "email" | "key") {
    return (result: CodesBody) => {
      toast.success(t(`toasts.${what}Enabled`));
      if (result.codes && result.codes.length > 0) setCodes(result.codes);
      void refresh();
    };
  }

  const makeDefault = useMutation({
    mutationFn: mfaApi.setDefault,
    onSuccess: (result, method) => {
      toast.success(user.mfa_enabled ? t("toasts.defaultChanged", { method: tm(METHOD_KEY[method]) }) : t("toasts.mfaOn"));
      if (result.codes && result.codes.length > 0) setCodes(result.codes);
      void refresh();
    },
    onError: (err) => toast.error(t("toasts.changeFailed"), { subMessage: messageOf(err) }),
  });

  async function run(action: () => Promise<unknown>, success: string, failure: string) {
    try {
      await action();
      toast.success(success);
    } catch (err) {
      toast.error(failure, { subMessage: messageOf(err) });
      throw err;
    } finally {
      void refresh();
    }
  }

  const onlyMethod = configuredCount === 1;
  const lastMethodNote = onlyMethod ? ` ${t("lastMethodNote")}` : "";

  function confirmProps() {
    switch (confirm?.kind) {
      case "totp":
        return {
          title: t("confirm.totpTitle"),
          description: t("confirm.totpDescription") + lastMethodNote,
          confirmLabel: t("disable"),
          onConfirm: () => run(mfaApi.totpDisable, t("toasts.totpDisabled"), t("toasts.changeFailed")),
        };
      case "email":
        return {
          title: t("confirm.emailTitle"),
          description: t("confirm.emailDescription") + lastMethodNote,
          confirmLabel: t("disable"),
          onConfirm: () => run(mfaApi.emailDisable, t("toasts.emailDisabled"), t("toasts.changeFailed")),
        };
      case "key": {
        const key = confirm.key;
        const last = keyList.length === 1 && onlyMethod;
        return {
          title: t("confirm.keyTitle", { name: key.name }),
          description: t("confirm.keyDescription") + (last ? ` ${t("lastMethodNote")}` : ""),
          confirmLabel: t("confirm.keyConfirm"),
          onConfirm: () =>
            run(() => mfaApi.deleteKey(user.username, key.id), t("toasts.keyDeleted", { name: key.name }), t("toasts.changeFailed")),
        };
      }
      case "mfa":
        return {
          title: t("confirm.mfaTitle"),
          description:
            t("confirm.mfaDescription") + (keyList.length > 0 ? ` ${t("confirm.mfaKeys", { keys: keyList.length })}` : ""),
          confirmLabel: t("turnOff"),
          onConfirm: () => run(mfaApi.disableMfa, t("toasts.mfaOff"), t("toasts.mfaOffFailed")),
        };
      default:
        return null;
    }
  }
  const confirmation = confirmProps();

  /** A method set up by a code (TOTP, e-mail): make default and disable, or set up. */
  function codeMethodActions(method: "OneTimePassword" | "Email", kind: "totp" | "email") {
    if (!self) return false;
    return has[method] ? (
      <>
        {defaultButton(method)}
        <Button variant="secondary" size="sm" data-testid={`${kind}-disable`} onClick={() => setConfirm({ kind })}>
          {t("disable")}
        </Button>
      </>
    ) : (
      <Button variant="secondary" size="sm" data-testid={`${kind}-enable`} onClick={() => setDialog(kind)}>
        {t("setUp")}
      </Button>
    );
  }

  function defaultButton(method: MfaMethod) {
    if (!self || !has[method] || defaultMethod === method || !user.mfa_enabled) return null;
    return (
      <Button
        variant="ghost"
        size="sm"
        data-testid={`make-default-${METHOD_KEY[method]}`}
        loading={makeDefault.isPending && makeDefault.variables === method}
        disabled={makeDefault.isPending}
        onClick={() => makeDefault.mutate(method)}
      >
        {t("makeDefault")}
      </Button>
    );
  }

  const statusBadge = (
    <Badge tone={user.mfa_enabled ? "success" : "neutral"} data-testid="mfa-status">
      {user.mfa_enabled ? <ShieldCheck aria-hidden /> : <ShieldOff aria-hidden />}
      {user.mfa_enabled ? t("on") : t("off")}
    </Badge>
  );

  return (
    <section data-testid="mfa-settings" aria-labelledby="mfa-settings-title" className="flex flex-col gap-3">
      <header className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
        <div className="min-w-0 flex-1 basis-52">
          <h3 id="mfa-settings-title" className="text-sm font-medium text-fg">
            {t("title")}
          </h3>
          <p className="mt-0.5 text-xs text-fg-muted">
            {user.mfa_enabled && defaultMethod
              ? t("descriptionOn", { method: tm(METHOD_KEY[defaultMethod]) })
              : self
                ? t("descriptionOff")
                : t("descriptionOffOther")}
          </p>
        </div>
        {statusBadge}
      </header>
      <ul className="divide-y divide-border rounded-lg border border-border">
        <MethodRow
          testId="mfa-totp"
          icon={Smartphone}
          title={tm("totp")}
          description={t("totpDescription")}
          configured={has.OneTimePassword}
          isDefault={defaultMethod === "OneTimePassword"}
          actions={codeMethodActions("OneTimePassword", "totp")}
        />
        <MethodRow
          testId="mfa-email"
          icon={Mail}
          title={tm("email")}
          description={t.rich("emailDescription", {
            email: user.email,
            b: (chunk) => <span className="font-medium text-fg">{chunk}</span>,
          })}
          configured={has.Email}
          isDefault={defaultMethod === "Email"}
          actions={codeMethodActions("Email", "email")}
        />
        <MethodRow
          testId="mfa-webauthn"
          icon={KeyRound}
          title={tm("webauthn")}
          description={webauthnOk || !self ? t("keysDescription") : t("keysUnsupported")}
          configured={has.Webauthn}
          isDefault={defaultMethod === "Webauthn"}
          actions={
            self && (
              <>
                {defaultButton("Webauthn")}
                <Button
                  variant="secondary"
                  size="sm"
                  data-testid="key-add"
                  disabled={!webauthnOk || keys.isPending}
                  onClick={() => setDialog("key")}
                >
                  <Plus aria-hidden />
                  {t("addKey")}
                </Button>
              </>
            )
          }
        >
          <div>
            {keys.isPending ? (
              <div className="flex flex-col gap-2">
                <Skeleton className="h-10 w-full" />
              </div>
            ) : keys.isError ? (
              setupRequired ? null : (
                <InlineError
                  message={t("keysLoadFailed")}
                  detail={messageOf(keys.error)}
                  onRetry={() => keys.refetch()}
                  retrying={keys.isFetching}
                />
              )
            ) : keyList.length === 0 ? (
              <p className="text-xs text-fg-subtle">{t("noKeys")}</p>
            ) : (
              <ul data-testid="key-list" className="divide-y divide-border rounded-md border border-border">
                {keyList.map((key) => (
                  <li key={key.id} data-testid="key-item" className="flex items-center gap-3 py-1.5 pl-3 pr-1.5">
                    <KeyRound className="size-4 shrink-0 text-fg-muted" aria-hidden />
                    <span className="min-w-0 flex-1 truncate text-sm text-fg" title={key.name}>
                      {key.name}
                    </span>
                    <RowActionsMenu
                      label={t("keyActions", { name: key.name })}
                      testId="key-menu"
                      // Deleting asks in the page's confirm dialog (it says when this is the last method).
                      onConfirm={() => undefined}
                      items={[
                        { label: t("rename"), icon: Pencil, testId: "key-rename", onSelect: () => setRenaming(key) },
                        { label: t("delete"), icon: Trash2, danger: true, testId: "key-delete", onSelect: () => setConfirm({ kind: "key", key }) },
                      ]}
                    />
                  </li>
                ))}
              </ul>
            )}
          </div>
        </MethodRow>
      </ul>
      {self && (user.mfa_enabled || configuredCount > 0) && (
        <div className="flex flex-wrap items-center justify-between gap-3 pt-1">
          {user.mfa_enabled ? (
            <>
              <p className="min-w-0 flex-1 basis-52 text-xs text-fg-muted">{t("turnOffHint")}</p>
              <Button variant="secondary" size="sm" data-testid="mfa-disable" onClick={() => setConfirm({ kind: "mfa" })} className="text-error">
                <ShieldOff aria-hidden />
                {t("turnOff")}
              </Button>
            </>
          ) : (
            <>
              <p className="min-w-0 flex-1 basis-52 text-xs text-fg-muted">{t("turnOnHint")}</p>
              <Button
                size="sm"
                data-testid="mfa-enable"
                loading={makeDefault.isPending}
                onClick={() =>
                  makeDefault.mutate(has.OneTimePassword ? "OneTimePassword" : has.Webauthn ? "Webauthn" : "Email")
                }
              >
                <ShieldCheck aria-hidden />
                {t("turnOn")}
              </Button>
            </>
          )}
        </div>
      )}

      {self && (
        <>
          <TotpSetupDialog open={dialog === "totp"} onOpenChange={(o) => setDialog(o ? "totp" : null)} onEnabled={enabled("totp")} />
          <EmailSetupDialog
            open={dialog === "email"}
            onOpenChange={(o) => setDialog(o ? "email" : null)}
            email={user.email}
            onEnabled={enabled("email")}
          />
          <AddSecurityKeyDialog open={dialog === "key"} onOpenChange={(o) => setDialog(o ? "key" : null)} onAdded={enabled("key")} />
          <RecoveryCodesDialog codes={codes} username={user.username} onDone={() => setCodes(null)} />
        </>
      )}
      <RenameSecurityKeyDialog
        securityKey={renaming}
        onOpenChange={(o) => !o && setRenaming(null)}
        onRename={async (key, name) => {
          // A refusal lands on the name field of the dialog.
          await mfaApi.renameKey(user.username, key.id, name);
          toast.success(t("toasts.keyRenamed", { name }));
          void refresh();
        }}
      />
      {confirmation && (
        <ConfirmDialog
          open
          danger
          onOpenChange={(o) => !o && setConfirm(null)}
          title={confirmation.title}
          description={confirmation.description}
          confirmLabel={confirmation.confirmLabel}
          onConfirm={confirmation.onConfirm}
        />
      )}
    </section>
  );
}
