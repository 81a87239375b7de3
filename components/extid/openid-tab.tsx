"use client";

import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { Controller, useForm, useWatch } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { CircleAlert, CircleCheck, PlugZap, RefreshCw, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { OPENID_USERNAME_HANDLING } from "@/lib/settings/schema";
import { PRESET_BASE_URL, PROVIDER_PRESETS, providerSchema, SYNC_BEHAVIORS, SYNC_PROVIDERS, SYNC_TARGETS, type ProviderFormValues, type ProviderInput, type ProviderPreset } from "@/lib/extid/schema";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Field } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { Input } from "@/components/ui/input";
import { RelativeTime } from "@/components/ui/relative-time";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Skeleton } from "@/components/ui/skeleton";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/toaster";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";
import { SettingsSaveBar, SettingSwitch } from "@/components/settings/settings-form";
import { openidProviderQuery, syncDirectoryNow, testDirectorySync, type DirsyncNow, type DirsyncTest, type ProviderAnswer } from "./queries";

type Values = ProviderFormValues & { scopes: string; directory_sync_group_match: string };

function valuesOf(a: ProviderAnswer): Values {
  const p = a?.provider;
  return {
    name: (p?.name as ProviderPreset | undefined) ?? "Custom",
    base_url: p?.base_url ?? "",
    client_id: p?.client_id ?? "",
    client_secret: "",
    display_name: p?.display_name ?? "",
    scopes: (p?.scopes ?? ["openid", "email", "profile"]).join(" "),
    admin_email: p?.admin_email ?? "",
    google_service_account_email: p?.google_service_account_email ?? "",
    google_service_account_key: "",
    directory_sync_enabled: p?.directory_sync_enabled ?? false,
    directory_sync_interval: p?.directory_sync_interval ?? 600,
    directory_sync_user_behavior: (p?.directory_sync_user_behavior as Values["directory_sync_user_behavior"]) ?? "keep",
    directory_sync_admin_behavior: (p?.directory_sync_admin_behavior as Values["directory_sync_admin_behavior"]) ?? "keep",
    directory_sync_target: (p?.directory_sync_target as Values["directory_sync_target"]) ?? "all",
    create_account: a?.settings.create_account ?? true,
    username_handling: (a?.settings.username_handling as Values["username_handling"]) ?? "RemoveForbidden",
    okta_private_jwk: "",
    okta_dirsync_client_id: p?.okta_dirsync_client_id ?? "",
    directory_sync_group_match: (p?.directory_sync_group_match ?? []).join(", "),
    jumpcloud_api_key: "",
    prefetch_users: p?.prefetch_users ?? false,
    use_openid_for_client_mfa: p?.use_openid_for_client_mfa ?? false,
  };
}

/** A select over fixed options whose labels are messages. */
function OptionSelect<T extends string>({ value, onChange, options, label, testId }: { value: T; onChange: (v: T) => void; options: readonly T[]; label: (v: T) => string; testId: string }) {
  return (
    <Select value={value} onValueChange={(v) => onChange(v as T)}>
      <SelectTrigger data-testid={testId}>
        <SelectValue />
      </SelectTrigger>
      <SelectContent>
        {options.map((o) => (
          <SelectItem key={o} value={o} data-testid={`${testId}-${o}`}>
            {label(o)}
          </SelectItem>
        ))}
      </SelectContent>
    </Select>
  );
}

/** Settings → OpenID: the external provider for "Sign in with …", account rules and directory sync. */
export function OpenidTab() {
  const query = useQuery(openidProviderQuery);
  const t = useTranslations("settings.openid");
  if (query.isError) return <InlineError message={t("loadFailed")} detail={query.error.message} onRetry={() => query.refetch()} retrying={query.isFetching} />;
  if (query.isPending) return <Skeleton className="h-96 rounded-lg" />;
  return <OpenidForm answer={query.data} />;
}

function OpenidForm({ answer }: { answer: ProviderAnswer }) {
  const t = useTranslations("settings.openid");
  const client = useQueryClient();
  const serverError = useServerError();
  const provider = answer?.provider;
  const form = useForm<Values, unknown, ProviderInput>({ resolver: zodResolver(providerSchema) as never, mode: "onTouched", defaultValues: valuesOf(answer) });
  const { isDirty } = form.formState;
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [test, setTest] = useState<DirsyncTest | null>(null);
  const [testing, setTesting] = useState(false);
  const [syncResult, setSyncResult] = useState<{ ok: DirsyncNow } | { error: string } | null>(null);
  const [syncing, setSyncing] = useState(false);
  const name = useWatch({ control: form.control, name: "name" }) as ProviderPreset;
  const syncOn = useWatch({ control: form.control, name: "directory_sync_enabled" });
  const clientMfaOn = useWatch({ control: form.control, name: "use_openid_for_client_mfa" });

  useEffect(() => {
    if (!form.formState.isDirty) form.reset(valuesOf(answer));
  }, [answer, form]);

  const save = useSubmit(form, {
    mutationFn: (v) => api.post("/openid/provider", v),
    success: () => t("saved"),
    onSuccess: async () => {
      form.reset(form.getValues());
      await client.invalidateQueries({ queryKey: openidProviderQuery.queryKey });
      await client.invalidateQueries({ queryKey: ["info"] });
    },
    errorText: serverError,
    failure: t("saveFailed"),
    toastFieldErrors: true,
  });

  async function remove() {
    try {
      await api.delete(`/openid/provider/${encodeURIComponent(provider!.name)}`);
      toast.success(t("removed"));
      client.setQueryData(openidProviderQuery.queryKey, null);
      form.reset(valuesOf(null));
    } catch (err) {
      toast.error(t("removeFailed"), { subMessage: serverError(err) });
      throw err;
    }
  }

  async function runTest() {
    setTesting(true);
    try {
      setTest(await testDirectorySync());
    } catch (err) {
      setTest({ success: false, message: serverError(err) });
    } finally {
      setTesting(false);
    }
  }

  async function runSyncNow() {
    setSyncing(true);
    setSyncResult(null);
    try {
      setSyncResult({ ok: await syncDirectoryNow() });
    } catch (err) {
      setSyncResult({ error: serverError(err) });
    } finally {
      setSyncing(false);
      // The last sync's time and result shown above come from the provider.
      await client.invalidateQueries({ queryKey: openidProviderQuery.queryKey });
    }
  }

  const secretHint = (set: boolean | undefined) => (set ? t("secretSet") : t("secretNotSet"));
  const status = provider?.directory_sync_status;
  const canSync = SYNC_PROVIDERS.includes(name);

  return (
    <form noValidate data-testid="openid-settings-form" onSubmit={save.onSubmit} className="flex flex-col gap-4">
      <Card>
        <CardHeader
          title={t("providerTitle")}
          description={t("providerDescription")}
          action={
            provider ? (
              <Badge tone="success" data-testid="openid-status">
                <CircleCheck aria-hidden />
                {t("configured", { name: provider.display_name ?? provider.name })}
              </Badge>
            ) : (
              <Badge tone="warning" data-testid="openid-status">
                <CircleAlert aria-hidden />
                {t("notConfigured")}
              </Badge>
            )
          }
        />
        <CardBody className="flex flex-col gap-4">
          <Field label={t("preset")} hint={t("presetHint")}>
            <Controller
              control={form.control}
              name="name"
              render={({ field }) => (
                <OptionSelect
                  testId="openid-preset"
                  value={field.value as ProviderPreset}
                  options={PROVIDER_PRESETS}
                  label={(v) => (v === "Custom" ? t("custom") : v)}
                  onChange={(v) => {
                    field.onChange(v);
                    form.setValue("base_url", PRESET_BASE_URL[v], { shouldDirty: true });
                    form.setValue("display_name", v === "Custom" ? "" : v, { shouldDirty: true });
                  }}
                />
              )}
            />
          </Field>
          <Field label={t("baseUrl")} hint={t("baseUrlHint")} error={save.errorOf("base_url")}>
            <Input data-testid="openid-base-url" spellCheck={false} {...form.register("base_url")} />
          </Field>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label={t("clientId")} error={save.errorOf("client_id")}>
              <Input data-testid="openid-client-id" spellCheck={false} autoComplete="off" {...form.register("client_id")} />
            </Field>
            <Field label={t("clientSecret")} hint={secretHint(provider?.client_secret_set)} error={save.errorOf("client_secret")}>
              <Input data-testid="openid-client-secret" type="password" autoComplete="new-password" {...form.register("client_secret")} />
            </Field>
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label={t("displayName")} hint={t("displayNameHint")} error={save.errorOf("display_name")}>
              <Input data-testid="openid-display-name" {...form.register("display_name")} />
            </Field>
            <Field label={t("scopes")} hint={t("scopesHint")} error={save.errorOf("scopes")}>
              <Input data-testid="openid-scopes" spellCheck={false} {...form.register("scopes")} />
            </Field>
          </div>
          <p className="text-xs text-fg-muted">{t("callbackHint", { url: typeof window === "undefined" ? "/auth/callback" : `${window.location.origin}/auth/callback` })}</p>
        </CardBody>
      </Card>

      <Card>
        <CardHeader title={t("accountsTitle")} description={t("accountsDescription")} />
        <CardBody className="divide-y divide-border py-1">
          <Controller control={form.control} name="create_account" render={({ field }) => <SettingSwitch id="openid-create-account" label={t("createAccount")} hint={t("createAccountHint")} checked={Boolean(field.value)} onChange={field.onChange} />} />
          <Controller
            control={form.control}
            name="use_openid_for_client_mfa"
            render={({ field }) => <SettingSwitch id="openid-client-mfa" label={t("clientMfa")} hint={t("clientMfaHint")} checked={Boolean(field.value)} onChange={field.onChange} />}
          />
          {clientMfaOn && (
            <p className="py-2 text-xs text-fg-muted" data-testid="openid-client-mfa-callback">
              {t("clientMfaCallbackHint", { url: typeof window === "undefined" ? "/openid/mfa/callback" : `${window.location.origin}/openid/mfa/callback` })}
            </p>
          )}
          <div className="py-3">
            <Field label={t("usernameHandling")} hint={t("usernameHandlingHint")}>
              <Controller
                control={form.control}
                name="username_handling"
                render={({ field }) => (
                  <OptionSelect testId="openid-username-handling" value={(field.value ?? "RemoveForbidden") as (typeof OPENID_USERNAME_HANDLING)[number]} options={OPENID_USERNAME_HANDLING} label={(v) => t(`usernameHandlings.${v}`)} onChange={field.onChange} />
                )}
              />
            </Field>
          </div>
        </CardBody>
      </Card>

      {canSync && (
        <Card>
          <CardHeader
            title={t("sync.title")}
            description={t("sync.description")}
            action={
              <div className="flex flex-wrap gap-2">
                <Button type="button" variant="secondary" size="sm" loading={testing} disabled={!provider || isDirty} onClick={runTest} data-testid="openid-sync-test">
                  <PlugZap aria-hidden />
                  {t("sync.test")}
                </Button>
                <Button
                  type="button"
                  variant="secondary"
                  size="sm"
                  loading={syncing}
                  disabled={!provider?.directory_sync_enabled || isDirty}
                  title={!provider?.directory_sync_enabled || isDirty ? t("sync.syncNowOff") : undefined}
                  onClick={runSyncNow}
                  data-testid="openid-sync-now"
                >
                  <RefreshCw aria-hidden />
                  {t("sync.syncNow")}
                </Button>
              </div>
            }
          />
          <CardBody className="flex flex-col gap-4">
            <div data-testid="openid-sync-status" className="text-sm">
              {!status?.last_sync_at ? (
                <span className="text-fg-muted">{t("sync.never")}</span>
              ) : status.ok ? (
                <span>
                  {t("sync.lastOk")} <RelativeTime value={status.last_sync_at} />: {status.result}
                </span>
              ) : (
                <span className="text-error">
                  {t("sync.lastFailed")} <RelativeTime value={status.last_sync_at} />: {status.error}
                </span>
              )}
            </div>
            {syncResult && (
              <div data-testid="openid-sync-now-result" role={"error" in syncResult ? "alert" : "status"} className="text-sm">
                {"error" in syncResult ? (
                  <p className="text-error">{t("sync.syncNowFailed", { message: syncResult.error })}</p>
                ) : (
                  <>
                    <p className="text-success">{t("sync.syncNowOk", { users: syncResult.ok.users, groups: syncResult.ok.groups, changes: syncResult.ok.changes })}</p>
                    {syncResult.ok.skipped.length > 0 && <p className="text-warning">{t("sync.syncNowSkipped", { items: syncResult.ok.skipped.join("; ") })}</p>}
                  </>
                )}
              </div>
            )}
            {test && (
              <p data-testid="openid-sync-test-result" className={test.success ? "text-sm text-success" : "text-sm text-error"}>
                {test.success ? t("sync.testOk", { users: test.users ?? 0, groups: test.groups ?? 0 }) : t("sync.testFailed", { message: test.message })}
              </p>
            )}
            <Controller control={form.control} name="directory_sync_enabled" render={({ field }) => <SettingSwitch id="openid-sync-enabled" label={t("sync.enabled")} hint={t("sync.enabledHint")} checked={Boolean(field.value)} onChange={field.onChange} />} />
            {syncOn && (
              <>
                <div className="grid gap-4 sm:grid-cols-2">
                  <Field label={t("sync.target")}>
                    <Controller control={form.control} name="directory_sync_target" render={({ field }) => <OptionSelect testId="openid-sync-target" value={field.value ?? "all"} options={SYNC_TARGETS} label={(v) => t(`sync.targets.${v}`)} onChange={field.onChange} />} />
                  </Field>
                  <Field label={t("sync.interval")} hint={t("sync.intervalHint")} error={save.errorOf("directory_sync_interval")}>
                    <Input type="number" min={60} data-testid="openid-sync-interval" {...form.register("directory_sync_interval", { valueAsNumber: true })} />
                  </Field>
                  <Field label={t("sync.userBehavior")}>
                    <Controller control={form.control} name="directory_sync_user_behavior" render={({ field }) => <OptionSelect testId="openid-sync-user-behavior" value={field.value ?? "keep"} options={SYNC_BEHAVIORS} label={(v) => t(`sync.behaviors.${v}`)} onChange={field.onChange} />} />
                  </Field>
                  <Field label={t("sync.adminBehavior")}>
                    <Controller control={form.control} name="directory_sync_admin_behavior" render={({ field }) => <OptionSelect testId="openid-sync-admin-behavior" value={field.value ?? "keep"} options={SYNC_BEHAVIORS} label={(v) => t(`sync.behaviors.${v}`)} onChange={field.onChange} />} />
                  </Field>
                </div>
                <Field label={t("sync.groupMatch")} hint={t("sync.groupMatchHint")} error={save.errorOf("directory_sync_group_match")}>
                  <Input data-testid="openid-sync-group-match" {...form.register("directory_sync_group_match")} />
                </Field>
                {name === "Google" && (
                  <>
                    <div className="grid gap-4 sm:grid-cols-2">
                      <Field label={t("sync.adminEmail")} hint={t("sync.adminEmailHint")} error={save.errorOf("admin_email")}>
                        <Input type="email" data-testid="openid-sync-admin-email" {...form.register("admin_email")} />
                      </Field>
                      <Field label={t("sync.serviceAccountEmail")} error={save.errorOf("google_service_account_email")}>
                        <Input type="email" data-testid="openid-sync-sa-email" {...form.register("google_service_account_email")} />
                      </Field>
                    </div>
                    <Field label={t("sync.serviceAccountKey")} hint={secretHint(provider?.google_service_account_key_set)} error={save.errorOf("google_service_account_key")}>
                      <Textarea rows={4} spellCheck={false} data-testid="openid-sync-sa-key" placeholder={t("sync.serviceAccountKeyPlaceholder")} {...form.register("google_service_account_key")} />
                    </Field>
                  </>
                )}
                {name === "Okta" && (
                  <>
                    <Field label={t("sync.oktaClientId")} error={save.errorOf("okta_dirsync_client_id")}>
                      <Input data-testid="openid-sync-okta-client-id" {...form.register("okta_dirsync_client_id")} />
                    </Field>
                    <Field label={t("sync.oktaJwk")} hint={secretHint(provider?.okta_private_jwk_set)} error={save.errorOf("okta_private_jwk")}>
                      <Textarea rows={4} spellCheck={false} data-testid="openid-sync-okta-jwk" {...form.register("okta_private_jwk")} />
                    </Field>
                  </>
                )}
                {name === "JumpCloud" && (
                  <Field label={t("sync.jumpcloudKey")} hint={secretHint(provider?.jumpcloud_api_key_set)} error={save.errorOf("jumpcloud_api_key")}>
                    <Input type="password" autoComplete="new-password" data-testid="openid-sync-jumpcloud-key" {...form.register("jumpcloud_api_key")} />
                  </Field>
                )}
                {name === "Microsoft" && <p className="text-xs text-fg-muted">{t("sync.microsoftHint")}</p>}
                <Controller control={form.control} name="prefetch_users" render={({ field }) => <SettingSwitch id="openid-sync-prefetch" label={t("sync.prefetch")} hint={t("sync.prefetchHint")} checked={Boolean(field.value)} onChange={field.onChange} />} />
              </>
            )}
          </CardBody>
        </Card>
      )}

      {provider && (
        <div>
          <Button type="button" variant="danger" onClick={() => setConfirmDelete(true)} data-testid="openid-delete">
            <Trash2 aria-hidden />
            {t("remove")}
          </Button>
          <ConfirmDialog open={confirmDelete} onOpenChange={setConfirmDelete} title={t("removeTitle")} description={t("removeDescription", { name: provider.name })} confirmLabel={t("remove")} danger onConfirm={remove} />
        </div>
      )}
      <SettingsSaveBar save={{ pending: save.pending, discard: () => form.reset(valuesOf(answer)) }} dirty={isDirty} labels={[t("discard"), t("save")]} saveTestId="openid-save" />
    </form>
  );
}
