"use client";

import type { ReactNode } from "react";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { z } from "zod";
import { api } from "@/lib/api/client";
import { locationFormSchema } from "@/lib/locations/schema";
import { useApiErrorText } from "@/components/devices/errors";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Switch } from "@/components/ui/switch";
import { useSubmit } from "@/components/ui/use-submit";
import { GroupsPicker } from "./groups-picker";
import { MFA_MODES, locationKeys, mfaModeOf, type Location, type LocationBody } from "./api";

type FormIn = z.input<typeof locationFormSchema>;
type FormOut = z.output<typeof locationFormSchema>;

const FIELDS = [
  "name",
  "address",
  "endpoint",
  "port",
  "allowed_ips",
  "dns",
  "allowed_groups",
  "keepalive_interval",
  "peer_disconnect_threshold",
  "acl_enabled",
  "acl_default_allow",
  "location_mfa_mode",
] as const;
type FieldName = (typeof FIELDS)[number];

function defaults(l?: Location): FormIn {
  return {
    name: l?.name ?? "",
    address: l?.address.join(", ") ?? "",
    endpoint: l?.endpoint ?? "",
    port: String(l?.port ?? 51820),
    allowed_ips: l?.allowed_ips.join(", ") ?? "",
    dns: l?.dns ?? "",
    allowed_groups: l?.allowed_groups ?? [],
    keepalive_interval: String(l?.keepalive_interval ?? 25),
    peer_disconnect_threshold: String(l?.peer_disconnect_threshold ?? 300),
    acl_enabled: l?.acl_enabled ?? false,
    acl_default_allow: l?.acl_default_allow ?? false,
    location_mfa_mode: l ? mfaModeOf(l) : "disabled",
  };
}

function Section({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  return (
    <Card>
      <CardHeader title={title} description={description} />
      <CardBody className="grid gap-4 md:grid-cols-2">{children}</CardBody>
    </Card>
  );
}

function SwitchRow({ label, hint, children }: { label: string; hint: string; children: ReactNode }) {
  return (
    <label className="flex items-start justify-between gap-4 rounded-md border border-border px-3 py-2.5 md:col-span-2">
      <span className="min-w-0">
        <span className="block text-sm font-medium text-fg">{label}</span>
        <span className="mt-0.5 block text-xs text-fg-muted">{hint}</span>
      </span>
      {children}
    </label>
  );
}

interface LocationFormProps {
  /** Edit this location; without it the form creates one. */
  location?: Location;
  onSaved: (location: Location) => void;
  /** Left of the submit button (Cancel, Back). */
  secondaryAction?: ReactNode;
  /** At the far left of the footer (Delete). */
  dangerAction?: ReactNode;
  submitLabel: string;
}

/** Every field of a location, checked with the API's own schema; server errors land on their fields. */
export function LocationForm({ location, onSaved, secondaryAction, dangerAction, submitLabel }: LocationFormProps) {
  const t = useTranslations("locations.form");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();

  const form = useForm<FormIn, unknown, FormOut>({
    resolver: zodResolver(locationFormSchema),
    mode: "onBlur",
    defaultValues: defaults(location),
  });
  const aclEnabled = form.watch("acl_enabled");
  const aclEffect = !aclEnabled ? "off" : form.watch("acl_default_allow") ? "allow" : "deny";

  const save = useSubmit(form, {
    mutationFn: (body) =>
      location ? api.put<LocationBody>(`/network/${location.id}`, body) : api.post<LocationBody>("/network", body),
    success: (saved) => (location ? t("saved", { name: saved.name }) : t("created", { name: saved.name })),
    onSuccess: (saved) => {
      void queryClient.invalidateQueries({ queryKey: locationKeys.all });
      void queryClient.invalidateQueries({ queryKey: ["info"] });
      void queryClient.invalidateQueries({ queryKey: ["devices"] });
      onSaved(saved);
    },
    errorText,
    failure: location ? t("saveFailed") : t("createFailed"),
    fields: FIELDS,
    toastFieldErrors: true,
  });
  const errorOf = save.errorOf;
  /** A text input of the form under its label, hint and error. */
  const text = (name: FieldName, label: string, opts: { hint?: string; wide?: boolean; mono?: boolean; numeric?: boolean; placeholder?: string; testId: string }) => (
    <Field label={label} error={errorOf(name)} hint={opts.hint} className={opts.wide ? "md:col-span-2" : undefined}>
      <Input
        inputMode={opts.numeric ? "numeric" : undefined}
        className={opts.mono ? "font-mono" : undefined}
        autoComplete={opts.numeric ? undefined : "off"}
        spellCheck={opts.mono && !opts.numeric ? false : undefined}
        placeholder={opts.placeholder}
        data-testid={opts.testId}
        {...form.register(name)}
      />
    </Field>
  );

  return (
    <form onSubmit={save.onSubmit} noValidate className="flex flex-col gap-4" data-testid="location-form">
      <Section title={t("general")} description={t("generalDescription")}>
        {text("name", t("name"), { wide: true, testId: "location-name" })}
        {text("address", t("address"), { hint: t("addressHint"), wide: true, mono: true, placeholder: "10.10.0.1/24, fd00::1/64", testId: "location-address" })}
        {text("endpoint", t("endpoint"), { hint: t("endpointHint"), mono: true, placeholder: "vpn.example.com", testId: "location-endpoint" })}
        {text("port", t("port"), { hint: t("portHint"), mono: true, numeric: true, testId: "location-port" })}
      </Section>

      <Section title={t("clients")} description={t("clientsDescription")}>
        {text("allowed_ips", t("allowedIps"), { hint: t("allowedIpsHint"), wide: true, mono: true, placeholder: "10.10.0.0/24, 192.168.1.0/24", testId: "location-allowed-ips" })}
        {text("dns", t("dns"), { hint: t("dnsHint"), mono: true, placeholder: "1.1.1.1", testId: "location-dns" })}
        {text("keepalive_interval", t("keepalive"), { hint: t("keepaliveHint"), mono: true, numeric: true, testId: "location-keepalive" })}
      </Section>

      <Section title={t("access")} description={t("accessDescription")}>
        <Field label={t("allowedGroups")} error={errorOf("allowed_groups")} hint={t("allowedGroupsHint")} className="md:col-span-2">
          <Controller
            control={form.control}
            name="allowed_groups"
            render={({ field }) => <GroupsPicker value={field.value ?? []} onChange={field.onChange} />}
          />
        </Field>
        <Field label={t("mfaMode")} error={errorOf("location_mfa_mode")} hint={t(`mfaHints.${form.watch("location_mfa_mode") ?? "disabled"}`)}>
          <Controller
            control={form.control}
            name="location_mfa_mode"
            render={({ field }) => (
              <Select value={field.value ?? "disabled"} onValueChange={field.onChange}>
                <SelectTrigger data-testid="location-mfa-mode" onBlur={field.onBlur}>
                  <SelectValue />
                </SelectTrigger>
                <SelectContent>
                  {MFA_MODES.map((m) => (
                    <SelectItem key={m} value={m}>
                      {t(`mfaModes.${m}`)}
                    </SelectItem>
                  ))}
                </SelectContent>
              </Select>
            )}
          />
        </Field>
        {text("peer_disconnect_threshold", t("disconnectThreshold"), { hint: t("disconnectThresholdHint"), mono: true, numeric: true, testId: "location-threshold" })}
      </Section>

      <Section title={t("firewall")} description={t("firewallDescription")}>
        <Controller
          control={form.control}
          name="acl_enabled"
          render={({ field }) => (
            <SwitchRow label={t("aclEnabled")} hint={t("aclEnabledHint")}>
              <Switch checked={!!field.value} onCheckedChange={field.onChange} aria-label={t("aclEnabled")} data-testid="location-acl" />
            </SwitchRow>
          )}
        />
        <Controller
          control={form.control}
          name="acl_default_allow"
          render={({ field }) => (
            <SwitchRow label={t("aclDefaultAllow")} hint={aclEnabled ? t("aclDefaultAllowHint") : t("aclDefaultAllowOff")}>
              <Switch checked={!!field.value} onCheckedChange={field.onChange} disabled={!aclEnabled} aria-label={t("aclDefaultAllow")} data-testid="location-acl-default-allow" />
            </SwitchRow>
          )}
        />
        <div className="rounded-md border border-border bg-subtle px-3 py-2.5 text-sm md:col-span-2" role="status" data-testid="location-acl-effect" data-effect={aclEffect}>
          <p className="font-medium text-fg">{t("aclEffect.title")}</p>
          <p className="mt-0.5 text-fg-muted">{t(`aclEffect.${aclEffect}`)}</p>
          {aclEnabled && <p className="mt-1 text-xs text-fg-muted">{t("aclEffect.pending")}</p>}
        </div>
      </Section>

      <div className="sticky bottom-0 z-10 -mx-4 flex flex-wrap items-center gap-2 border-t border-border bg-canvas/95 px-4 py-3 backdrop-blur md:-mx-8 md:px-8">
        {dangerAction}
        <div className="ml-auto flex gap-2">
          {secondaryAction}
          <Button type="submit" loading={save.pending} data-testid="location-submit">
            {submitLabel}
          </Button>
        </div>
      </div>
    </form>
  );
}
