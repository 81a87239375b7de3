"use client";

import { useRef, type ReactNode } from "react";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { z } from "zod";
import { ApiBadRequestError, api } from "@/lib/api/client";
import { locationFormSchema } from "@/lib/locations/schema";
import { useValidationMessages } from "@/components/forms/messages";
import { useApiErrorText } from "@/components/devices/errors";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Switch } from "@/components/ui/switch";
import { toast } from "@/components/ui/toaster";
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
  const { fromKey } = useValidationMessages();
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const sending = useRef(false);

  const form = useForm<FormIn, unknown, FormOut>({
    resolver: zodResolver(locationFormSchema),
    mode: "onBlur",
    defaultValues: defaults(location),
  });
  const { errors } = form.formState;
  const aclEnabled = form.watch("acl_enabled");

  const save = useMutation({
    mutationFn: (body: FormOut) =>
      location ? api.put<LocationBody>(`/network/${location.id}`, body) : api.post<LocationBody>("/network", body),
    onSuccess: (saved) => {
      toast.success(location ? t("saved", { name: saved.name }) : t("created", { name: saved.name }));
      void queryClient.invalidateQueries({ queryKey: locationKeys.all });
      void queryClient.invalidateQueries({ queryKey: ["info"] });
      void queryClient.invalidateQueries({ queryKey: ["devices"] });
      onSaved(saved);
    },
    onError: (err) => {
      const field = err instanceof ApiBadRequestError ? err.field : undefined;
      if (field && (FIELDS as readonly string[]).includes(field)) {
        form.setError(field as FieldName, { message: errorText(err) }, { shouldFocus: true });
      }
      toast.error(location ? t("saveFailed") : t("createFailed"), { subMessage: errorText(err) });
    },
  });

  const onSubmit = form.handleSubmit(async (body) => {
    if (sending.current) return;
    sending.current = true;
    try {
      await save.mutateAsync(body).catch(() => undefined);
    } finally {
      sending.current = false;
    }
  });

  // zod messages are validation keys; server messages are already sentences.
  const errorOf = (name: FieldName) => {
    const m = errors[name]?.message;
    return m ? fromKey(m) : undefined;
  };

  return (
    <form onSubmit={onSubmit} noValidate className="flex flex-col gap-4" data-testid="location-form">
      <Section title={t("general")} description={t("generalDescription")}>
        <Field label={t("name")} error={errorOf("name")} className="md:col-span-2">
          <Input autoComplete="off" data-testid="location-name" {...form.register("name")} />
        </Field>
        <Field label={t("address")} error={errorOf("address")} hint={t("addressHint")} className="md:col-span-2">
          <Input className="font-mono" autoComplete="off" spellCheck={false} placeholder="10.10.0.1/24, fd00::1/64" data-testid="location-address" {...form.register("address")} />
        </Field>
        <Field label={t("endpoint")} error={errorOf("endpoint")} hint={t("endpointHint")}>
          <Input className="font-mono" autoComplete="off" spellCheck={false} placeholder="vpn.example.com" data-testid="location-endpoint" {...form.register("endpoint")} />
        </Field>
        <Field label={t("port")} error={errorOf("port")} hint={t("portHint")}>
          <Input inputMode="numeric" className="font-mono" data-testid="location-port" {...form.register("port")} />
        </Field>
      </Section>

      <Section title={t("clients")} description={t("clientsDescription")}>
        <Field label={t("allowedIps")} error={errorOf("allowed_ips")} hint={t("allowedIpsHint")} className="md:col-span-2">
          <Input className="font-mono" autoComplete="off" spellCheck={false} placeholder="10.10.0.0/24, 192.168.1.0/24" data-testid="location-allowed-ips" {...form.register("allowed_ips")} />
        </Field>
        <Field label={t("dns")} error={errorOf("dns")} hint={t("dnsHint")}>
          <Input className="font-mono" autoComplete="off" spellCheck={false} placeholder="1.1.1.1" data-testid="location-dns" {...form.register("dns")} />
        </Field>
        <Field label={t("keepalive")} error={errorOf("keepalive_interval")} hint={t("keepaliveHint")}>
          <Input inputMode="numeric" className="font-mono" data-testid="location-keepalive" {...form.register("keepalive_interval")} />
        </Field>
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
        <Field label={t("disconnectThreshold")} error={errorOf("peer_disconnect_threshold")} hint={t("disconnectThresholdHint")}>
          <Input inputMode="numeric" className="font-mono" data-testid="location-threshold" {...form.register("peer_disconnect_threshold")} />
        </Field>
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
              <Switch checked={!!field.value} onCheckedChange={field.onChange} disabled={!aclEnabled} aria-label={t("aclDefaultAllow")} />
            </SwitchRow>
          )}
        />
      </Section>

      <div className="sticky bottom-0 z-10 -mx-4 flex flex-wrap items-center gap-2 border-t border-border bg-canvas/95 px-4 py-3 backdrop-blur md:-mx-8 md:px-8">
        {dangerAction}
        <div className="ml-auto flex gap-2">
          {secondaryAction}
          <Button type="submit" loading={save.isPending} data-testid="location-submit">
            {submitLabel}
          </Button>
        </div>
      </div>
    </form>
  );
}
