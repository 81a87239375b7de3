"use client";

import { useMemo, useState, type ReactNode } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { useForm, type Path } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { ArrowLeft, Info, ShieldOff } from "lucide-react";
import { api } from "@/lib/api/client";
import { aclRuleSchema, formatExpires, parseExpires } from "@/lib/acl/schema";
import { useDatePickerLabels } from "@/components/users/labels";
import { useServerError } from "@/components/users/server-errors";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DatePicker } from "@/components/ui/date-picker";
import { EmptyState } from "@/components/ui/empty-state";
import { Field } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { Input } from "@/components/ui/input";
import { MultiSelect, type MultiSelectLabels, type MultiSelectOption } from "@/components/ui/multi-select";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Switch } from "@/components/ui/switch";
import { useSubmit } from "@/components/ui/use-submit";
import { aliasKind, aliasState, refreshAcl, ruleState, useRule, type AclRule } from "./api";
import { useAclContext, type AclContext, type Named } from "./context";
import { DestinationFields } from "./protocols-field";
import { RuleStateBadge } from "./state-badge";

type FormIn = z.input<typeof aclRuleSchema>;
type FormOut = z.output<typeof aclRuleSchema>;
type IdField = "networks" | "allowed_users" | "denied_users" | "allowed_groups" | "denied_groups" | "allowed_devices" | "denied_devices" | "aliases";

const FIELDS = [
  "name",
  "all_networks",
  "networks",
  "expires",
  "enabled",
  "allow_all_users",
  "deny_all_users",
  "allow_all_network_devices",
  "deny_all_network_devices",
  "allowed_users",
  "denied_users",
  "allowed_groups",
  "denied_groups",
  "allowed_devices",
  "denied_devices",
  "destination",
  "aliases",
  "ports",
  "protocols",
] as const;

function defaults(r?: AclRule): FormIn {
  return {
    name: r?.name ?? "",
    all_networks: r?.all_networks ?? false,
    networks: r?.networks ?? [],
    expires: r?.expires ?? null,
    enabled: r?.enabled ?? true,
    allow_all_users: r?.allow_all_users ?? false,
    deny_all_users: r?.deny_all_users ?? false,
    allow_all_network_devices: r?.allow_all_network_devices ?? false,
    deny_all_network_devices: r?.deny_all_network_devices ?? false,
    allowed_users: r?.allowed_users ?? [],
    denied_users: r?.denied_users ?? [],
    allowed_groups: r?.allowed_groups ?? [],
    denied_groups: r?.denied_groups ?? [],
    allowed_devices: r?.allowed_devices ?? [],
    denied_devices: r?.denied_devices ?? [],
    destination: r?.destination ?? "",
    aliases: r?.aliases ?? [],
    ports: r?.ports ?? "",
    protocols: r?.protocols ?? [],
  };
}

function usePickerLabels(): MultiSelectLabels {
  const t = useTranslations("acl.picker");
  return useMemo(
    () => ({
      search: t("search"),
      empty: t("empty"),
      remove: (label: string) => t("remove", { label }),
      more: (count: number) => t("more", { count }),
      less: t("less"),
      clear: t("clear"),
    }),
    [t],
  );
}

const toOptions = (xs: Named[]): MultiSelectOption[] => xs.map((x) => ({ value: String(x.id), label: x.name, description: x.detail }));

function Section({ title, description, children, testId }: { title: string; description?: string; children: ReactNode; testId?: string }) {
  return (
    <Card data-testid={testId}>
      <CardHeader title={title} description={description} />
      <CardBody className="flex flex-col gap-4">{children}</CardBody>
    </Card>
  );
}

function SwitchRow({ label, hint, children }: { label: string; hint?: string; children: ReactNode }) {
  return (
    <label className="flex items-start justify-between gap-4 rounded-md border border-border px-3 py-2.5">
      <span className="min-w-0">
        <span className="block text-sm font-medium text-fg">{label}</span>
        {hint && <span className="mt-0.5 block text-xs text-fg-muted">{hint}</span>}
      </span>
      {children}
    </label>
  );
}

function FormSkeleton() {
  return (
    <div className="grid gap-4 xl:grid-cols-2" aria-hidden>
      {[4, 4, 5, 5].map((rows, i) => (
        <Card key={i}>
          <div className="border-b border-border px-4 py-3">
            <Skeleton className="h-5 w-40" />
          </div>
          <div className="flex flex-col gap-4 p-4">
            {Array.from({ length: rows }, (_, j) => (
              <Skeleton key={j} className="h-9 w-full" />
            ))}
          </div>
        </Card>
      ))}
    </div>
  );
}

/** The create / edit rule page: the rule, its destination, who it allows and who it denies. */
export function RulePage({ id }: { id: number | null }) {
  const t = useTranslations("acl.rule");
  const ctx = useAclContext();
  const rule = useRule(id);
  const serverError = useServerError();

  const back = (
    <Button variant="ghost" asChild>
      <Link href="/acl">
        <ArrowLeft aria-hidden />
        {t("back")}
      </Link>
    </Button>
  );

  if (id !== null && rule.isError) {
    return (
      <>
        <PageHeader title={t("editTitleUnknown")} action={back} />
        <InlineError message={t("loadFailed")} detail={serverError(rule.error)} onRetry={() => void rule.refetch()} retrying={rule.isFetching} />
      </>
    );
  }
  if (ctx.isError) {
    return (
      <>
        <PageHeader title={id === null ? t("createTitle") : t("editTitleUnknown")} action={back} />
        <InlineError message={t("contextFailed")} detail={serverError(ctx.error)} onRetry={ctx.retry} />
      </>
    );
  }
  if (!ctx.ready || (id !== null && !rule.data)) {
    return (
      <>
        <PageHeader title={id === null ? t("createTitle") : <Skeleton className="h-7 w-56" />} action={back} />
        <FormSkeleton />
      </>
    );
  }
  const r = id === null ? undefined : (rule.data as AclRule);
  if (r && ruleState(r) === "deleted") {
    return (
      <>
        <PageHeader title={t("editTitle", { name: r.name })} action={back} />
        <Card>
          <EmptyState icon={ShieldOff} title={t("deletedTitle")} description={t("deletedDescription")} />
        </Card>
      </>
    );
  }
  return <RuleForm key={r?.id ?? "new"} rule={r} ctx={ctx} back={back} />;
}

function RuleForm({ rule, ctx, back }: { rule?: AclRule; ctx: AclContext; back: ReactNode }) {
  const t = useTranslations("acl.rule");
  const router = useRouter();
  const client = useQueryClient();
  const serverError = useServerError();
  const labels = usePickerLabels();
  const dateLabels = useDatePickerLabels();
  const [dateValid, setDateValid] = useState(true);

  const form = useForm<FormIn, unknown, FormOut>({
    resolver: zodResolver(aclRuleSchema),
    mode: "onTouched",
    defaultValues: defaults(rule),
  });

  const wasApplied = rule && (ruleState(rule) === "applied" || ruleState(rule) === "expired");
  const save = useSubmit(form, {
    mutationFn: (v) => (rule ? api.put(`/acl/rule/${rule.id}`, v) : api.post("/acl/rule", v)),
    success: (_r, v) => (rule ? t("saved", { name: v.name }) : t("created", { name: v.name })),
    onSuccess: async () => {
      await refreshAcl(client);
      router.push("/acl");
    },
    errorText: serverError,
    failure: rule ? t("saveFailed") : t("createFailed"),
    fields: FIELDS,
    ready: () => dateValid,
  });
  const { errorOf } = save;

  const w = form.watch();
  // Revalidate the fields tied together once the user has tried to send.
  const tied = (name: Path<FormIn>) => (v: unknown) => {
    form.setValue(name, v as never, { shouldDirty: true, shouldValidate: form.formState.isSubmitted });
    if (form.formState.isSubmitted) void form.trigger();
  };

  const locationOptions = ctx.locations.map((l) => ({
    value: String(l.id),
    label: l.name,
    description: !l.aclEnabled ? t("locationAclOff") : l.defaultAllow ? t("locationDefaultAllow") : t("locationDefaultDeny"),
  }));
  const aliasOptions = ctx.aliases
    .filter((a) => aliasState(a) === "applied")
    .map((a) => ({ value: String(a.id), label: a.name, description: `${t(`aliasKinds.${aliasKind(a)}`)}${a.destination ? ` · ${a.destination}` : ""}` }));
  const userOptions = toOptions(ctx.users);
  const groupOptions = toOptions(ctx.groups);
  const deviceOptions = toOptions(ctx.devices);
  const nameOf = (list: Named[]) => (v: string) => list.find((x) => String(x.id) === v)?.name ?? `#${v}`;

  const picker = (name: IdField, label: string, options: MultiSelectOption[], opts: { disabled?: boolean; hint?: string; placeholder: string; getLabel?: (v: string) => string }) => (
    <Field label={label} error={errorOf(name)} hint={opts.hint}>
      <MultiSelect
        data-testid={`rule-${name.replace(/_/g, "-")}`}
        value={(w[name] ?? []).map(String)}
        onChange={(v) => tied(name)(v.map(Number))}
        options={options}
        labels={labels}
        placeholder={opts.placeholder}
        disabled={opts.disabled}
        getLabel={opts.getLabel}
        maxChips={10}
      />
    </Field>
  );
  const toggle = (name: "all_networks" | "enabled" | "allow_all_users" | "deny_all_users" | "allow_all_network_devices" | "deny_all_network_devices", label: string, hint?: string) => (
    <div className="flex flex-col gap-1">
      <SwitchRow label={label} hint={hint}>
        <Switch checked={!!w[name]} onCheckedChange={tied(name)} aria-label={label} data-testid={`rule-${name.replace(/_/g, "-")}`} />
      </SwitchRow>
      {errorOf(name) && <p className="text-xs font-medium text-error first-letter:uppercase">{errorOf(name)}</p>}
    </div>
  );

  const expiresDate = w.expires ? (parseExpires(w.expires) ?? undefined) : undefined;

  return (
    <>
      <PageHeader
        title={
          rule ? (
            <span className="flex flex-wrap items-center gap-2">
              {t("editTitle", { name: rule.name })}
              <RuleStateBadge rule={rule} />
            </span>
          ) : (
            t("createTitle")
          )
        }
        description={rule ? (wasApplied ? t("editAppliedDescription") : t("editPendingDescription")) : t("createDescription")}
        action={back}
      />
      <form noValidate onSubmit={save.onSubmit} data-testid="rule-form" className="flex flex-col gap-4">
        <div className="grid items-start gap-4 xl:grid-cols-2">
          <div className="flex min-w-0 flex-col gap-4">
            <Section title={t("general")} description={t("generalDescription")} testId="rule-general">
              <Field label={t("name")} error={errorOf("name")}>
                <Input data-testid="rule-name" autoComplete="off" autoFocus={!rule} {...form.register("name")} />
              </Field>
              {toggle("enabled", t("enabled"), t("enabledHint"))}
              {toggle("all_networks", t("allLocations"), t("allLocationsHint"))}
              {picker("networks", t("locations"), locationOptions, {
                disabled: !!w.all_networks,
                placeholder: w.all_networks ? t("allLocationsChosen") : t("locationsPlaceholder"),
                hint: t("locationsHint"),
                getLabel: (v) => ctx.maps.locations.get(Number(v))?.name ?? `#${v}`,
              })}
              <div className="flex flex-col gap-2">
                <SwitchRow label={t("neverExpires")} hint={t("neverExpiresHint")}>
                  <Switch
                    checked={w.expires === null || w.expires === undefined}
                    onCheckedChange={(never) => {
                      const inAWeek = new Date(Date.now() + 7 * 86_400_000);
                      inAWeek.setHours(0, 0, 0, 0);
                      tied("expires")(never ? null : formatExpires(inAWeek));
                      setDateValid(true);
                    }}
                    aria-label={t("neverExpires")}
                    data-testid="rule-never-expires"
                  />
                </SwitchRow>
                {w.expires !== null && w.expires !== undefined && (
                  <Field label={t("expires")} error={errorOf("expires") ?? (dateValid ? undefined : t("invalidDate"))} hint={t("expiresHint")}>
                    <DatePicker
                      data-testid="rule-expires"
                      withTime
                      value={expiresDate}
                      onChange={(d) => tied("expires")(d ? formatExpires(d) : null)}
                      onValidityChange={setDateValid}
                      labels={dateLabels}
                    />
                  </Field>
                )}
              </div>
            </Section>

            <Section title={t("destinationTitle")} description={t("destinationDescription")} testId="rule-destination-card">
              {picker("aliases", t("aliases"), aliasOptions, {
                placeholder: t("aliasesPlaceholder"),
                hint: t("aliasesHint"),
                getLabel: (v) => ctx.maps.aliases.get(Number(v))?.name ?? `#${v}`,
              })}
              <DestinationFields form={form} errorOf={errorOf} t={t} testIdPrefix="rule" />
            </Section>
          </div>

          <div className="flex min-w-0 flex-col gap-4">
            <Section title={t("allowedTitle")} description={t("allowedDescription")} testId="rule-allowed">
              {toggle("allow_all_users", t("allowAllUsers"))}
              {picker("allowed_users", t("users"), userOptions, { disabled: !!w.allow_all_users, placeholder: t("usersPlaceholder"), getLabel: nameOf(ctx.users) })}
              {picker("allowed_groups", t("groups"), groupOptions, { disabled: !!w.allow_all_users, placeholder: t("groupsPlaceholder"), getLabel: nameOf(ctx.groups) })}
              {toggle("allow_all_network_devices", t("allowAllDevices"))}
              {picker("allowed_devices", t("devices"), deviceOptions, {
                disabled: !!w.allow_all_network_devices,
                placeholder: t("devicesPlaceholder"),
                getLabel: nameOf(ctx.devices),
              })}
            </Section>
            <Section title={t("deniedTitle")} description={t("deniedDescription")} testId="rule-denied">
              {toggle("deny_all_users", t("denyAllUsers"))}
              {picker("denied_users", t("users"), userOptions, { disabled: !!w.deny_all_users, placeholder: t("usersPlaceholder"), getLabel: nameOf(ctx.users) })}
              {picker("denied_groups", t("groups"), groupOptions, { disabled: !!w.deny_all_users, placeholder: t("groupsPlaceholder"), getLabel: nameOf(ctx.groups) })}
              {toggle("deny_all_network_devices", t("denyAllDevices"))}
              {picker("denied_devices", t("devices"), deviceOptions, {
                disabled: !!w.deny_all_network_devices,
                placeholder: t("devicesPlaceholder"),
                getLabel: nameOf(ctx.devices),
              })}
            </Section>
            <p className="flex gap-2 rounded-md border border-border bg-subtle p-3 text-xs text-fg-muted">
              <Info className="mt-0.5 size-4 shrink-0" aria-hidden />
              {t("pendingNote")}
            </p>
          </div>
        </div>

        <div className="sticky bottom-0 z-10 -mx-4 flex flex-wrap items-center gap-2 border-t border-border bg-canvas/95 px-4 py-3 backdrop-blur md:-mx-8 md:px-8">
          <div className="ml-auto flex gap-2">
            <Button variant="secondary" asChild>
              <Link href="/acl">{t("cancel")}</Link>
            </Button>
            <Button type="submit" loading={save.pending} data-testid="rule-submit">
              {rule ? t("save") : t("create")}
            </Button>
          </div>
        </div>
      </form>
    </>
  );
}
