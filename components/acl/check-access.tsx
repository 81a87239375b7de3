"use client";

import { useState } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import type { z } from "zod";
import { CircleCheck, CircleX, SearchCheck } from "lucide-react";
import { api } from "@/lib/api/client";
import { aclCheckQuery } from "@/lib/acl/schema";
import { useServerError } from "@/components/users/server-errors";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Combobox } from "@/components/ui/combobox";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { useSubmit } from "@/components/ui/use-submit";
import type { AccessCheck } from "./api";
import type { AclContext } from "./context";

type FormIn = z.input<typeof aclCheckQuery>;
type Verdict = Pick<AccessCheck, "reason" | "reason_code" | "rule" | "alias">;
type FormOut = z.output<typeof aclCheckQuery>;
const FIELDS = ["location", "user", "device", "destination", "port", "protocol"] as const;

/**
 * "Check access": asks the server whether a user (any of their devices) or a network device may
 * reach a destination through a location, and which deployed rule decides it.
 */
export function CheckAccess({ ctx }: { ctx: AclContext }) {
  const t = useTranslations("acl.check");
  const serverError = useServerError();
  const [who, setWho] = useState<"user" | "device">("user");
  const [answer, setAnswer] = useState<AccessCheck | null>(null);
  const [userSearch, setUserSearch] = useState("");

  const form = useForm<FormIn, unknown, FormOut>({
    resolver: zodResolver(aclCheckQuery),
    mode: "onSubmit",
    defaultValues: { destination: "", protocol: 6 },
  });

  const check = useSubmit(form, {
    mutationFn: (q) => api.get<AccessCheck>("/acl/check", { query: { ...q, ...(who === "user" ? { device: undefined } : { user: undefined }) } }),
    onSuccess: (r) => setAnswer(r as AccessCheck),
    onError: () => setAnswer(null),
    errorText: serverError,
    failure: t("failed"),
    fields: FIELDS,
  });
  const { errorOf } = check;

  /** The reason in the console's language (the API's `reason` is English, for API clients). */
  const reasonText = (v: Verdict): string => {
    const rule = v.rule?.name ?? "";
    switch (v.reason_code) {
      case "rule_allow":
        return v.alias ? t("reasons.ruleAllowAlias", { rule, alias: v.alias.name }) : t("reasons.ruleAllow", { rule });
      case "rule_deny":
        return v.alias ? t("reasons.ruleDenyAlias", { rule, alias: v.alias.name }) : t("reasons.ruleDeny", { rule });
      case "default_allow":
        return t("reasons.defaultAllow");
      case "default_deny":
        return t("reasons.defaultDeny");
      case "acl_off":
        return t("reasons.aclOff");
      case "not_peer":
        return t("reasons.notPeer");
      case "no_address":
        return t("reasons.noAddress");
      default:
        return v.reason;
    }
  };

  const needle = userSearch.trim().toLowerCase();
  const userOptions = ctx.users
    .filter((u) => !needle || u.name.toLowerCase().includes(needle) || (u.detail ?? "").toLowerCase().includes(needle))
    .slice(0, 50)
    .map((u) => ({ value: u.name, label: u.name, description: u.detail }));
  const deviceOptions = ctx.devices.map((d) => ({ value: String(d.id), label: d.name, description: d.detail }));
  const comboLabels = { search: t("search"), empty: t("noOptions"), clear: t("clear") };
  const deviceColumns: DataColumn<AccessCheck["devices"][number]>[] = [
    { header: t("columns.device"), skeleton: "w-24", cellClassName: "font-medium text-fg", cell: (d) => d.name },
    { header: t("columns.source"), skeleton: "w-20", className: "hidden sm:table-cell", cellClassName: "font-mono text-xs", cell: (d) => d.source ?? "—" },
    {
      header: t("columns.verdict"),
      skeleton: "w-16",
      cell: (d) => (d.allowed ? <Badge tone="success">{t("allowed")}</Badge> : <Badge tone="error">{t("denied")}</Badge>),
    },
    { header: t("columns.reason"), skeleton: "w-40", className: "hidden md:table-cell", cellClassName: "text-xs text-fg-muted", cell: (d) => reasonText(d) },
  ];

  return (
    <Card data-testid="acl-check">
      <CardHeader title={t("title")} description={t("description")} />
      <CardBody>
        <form noValidate onSubmit={check.onSubmit} className="grid gap-4 md:grid-cols-2 xl:grid-cols-6">
          <Field label={t("location")} error={errorOf("location")} className="xl:col-span-2">
            <Controller
              control={form.control}
              name="location"
              render={({ field }) => (
                <Select value={field.value ? String(field.value) : ""} onValueChange={(v) => field.onChange(Number(v))}>
                  <SelectTrigger data-testid="check-location">
                    <SelectValue placeholder={t("locationPlaceholder")} />
                  </SelectTrigger>
                  <SelectContent>
                    {ctx.locations.map((l) => (
                      <SelectItem key={l.id} value={String(l.id)}>
                        {l.name}
                      </SelectItem>
                    ))}
                  </SelectContent>
                </Select>
              )}
            />
          </Field>
          <Field label={t("who")} error={errorOf("user") ?? errorOf("device")} className="xl:col-span-4">
            <div className="flex gap-2">
              <Select
                value={who}
                onValueChange={(v) => {
                  setWho(v as "user" | "device");
                  form.setValue("user", undefined);
                  form.setValue("device", undefined);
                }}
              >
                <SelectTrigger className="w-32 shrink-0" data-testid="check-who" aria-label={t("whoKind")}>
                  <SelectValue />
                </SelectTrigger>
                <SelectContent>
                  <SelectItem value="user">{t("user")}</SelectItem>
                  <SelectItem value="device">{t("device")}</SelectItem>
                </SelectContent>
              </Select>
              {who === "user" ? (
                <Controller
                  control={form.control}
                  name="user"
                  render={({ field }) => (
                    <Combobox
                      className="min-w-0 flex-1"
                      data-testid="check-user"
                      aria-label={t("user")}
                      value={field.value ?? null}
                      onChange={(v) => field.onChange(v ?? undefined)}
                      options={userOptions}
                      onSearchChange={setUserSearch}
                      labels={comboLabels}
                      placeholder={t("userPlaceholder")}
                    />
                  )}
                />
              ) : (
                <Controller
                  control={form.control}
                  name="device"
                  render={({ field }) => (
                    <Combobox
                      className="min-w-0 flex-1"
                      data-testid="check-device"
                      aria-label={t("device")}
                      value={field.value ? String(field.value) : null}
                      onChange={(v) => field.onChange(v ? Number(v) : undefined)}
                      options={deviceOptions}
                      labels={comboLabels}
                      placeholder={t("devicePlaceholder")}
                    />
                  )}
                />
              )}
            </div>
          </Field>
          <Field label={t("destination")} error={errorOf("destination")} className="md:col-span-2 xl:col-span-3">
            <Input data-testid="check-destination" className="font-mono" autoComplete="off" spellCheck={false} placeholder="192.0.2.10" {...form.register("destination")} />
          </Field>
          <div className="grid grid-cols-2 gap-4 md:col-span-2 xl:col-span-2">
            <Field label={t("protocol")} error={errorOf("protocol")}>
              <Controller
                control={form.control}
                name="protocol"
                render={({ field }) => (
                  <Select value={field.value !== undefined ? String(field.value) : "any"} onValueChange={(v) => field.onChange(v === "any" ? undefined : Number(v))}>
                    <SelectTrigger data-testid="check-protocol">
                      <SelectValue />
                    </SelectTrigger>
                    <SelectContent>
                      <SelectItem value="6">TCP</SelectItem>
                      <SelectItem value="17">UDP</SelectItem>
                      <SelectItem value="1">ICMP</SelectItem>
                    </SelectContent>
                  </Select>
                )}
              />
            </Field>
            <Field label={t("port")} error={errorOf("port")}>
              <Controller
                control={form.control}
                name="port"
                render={({ field }) => (
                  <Input
                    data-testid="check-port"
                    inputMode="numeric"
                    className="font-mono"
                    autoComplete="off"
                    placeholder="443"
                    value={field.value === undefined ? "" : String(field.value)}
                    onChange={(e) => field.onChange(e.target.value.trim() === "" ? undefined : e.target.value.trim())}
                    onBlur={field.onBlur}
                  />
                )}
              />
            </Field>
          </div>
          <div className="flex items-end md:col-span-2 xl:col-span-1 xl:justify-end">
            <Button type="submit" className="h-9" loading={check.pending} data-testid="check-submit">
              <SearchCheck aria-hidden />
              {t("submit")}
            </Button>
          </div>
        </form>
        {answer && (
          <div
            role="status"
            data-testid="check-result"
            data-allowed={String(answer.allowed)}
            className={
              answer.allowed
                ? "mt-4 flex gap-3 rounded-md border border-success/40 bg-success-subtle p-3 text-sm"
                : "mt-4 flex gap-3 rounded-md border border-error/40 bg-error-subtle p-3 text-sm"
            }
          >
            {answer.allowed ? <CircleCheck className="mt-0.5 size-5 shrink-0 text-success" aria-hidden /> : <CircleX className="mt-0.5 size-5 shrink-0 text-error" aria-hidden />}
            <div className="min-w-0">
              <p className="font-semibold text-fg">{answer.allowed ? t("allowed") : t("denied")}</p>
              <p className="text-fg-muted">
                {answer.rule ? (
                  <>
                    {t("byRule")}{" "}
                    <Link href={`/acl/rules/${answer.rule.id}`} className="font-medium text-fg underline" data-testid="check-rule">
                      {answer.rule.name}
                    </Link>
                  </>
                ) : (
                  t("noRule")
                )}
              </p>
              <p className="mt-1 text-fg" data-testid="check-reason" data-reason={answer.reason_code}>
                {reasonText(answer)}
              </p>
            </div>
          </div>
        )}
        {answer && answer.devices.length > 1 && (
          <DataTable
            className="mt-3 max-h-64"
            testId="check-devices"
            columns={deviceColumns}
            rows={answer.devices}
            rowKey={(d) => d.id}
            empty={{ icon: SearchCheck, title: t("noDevices") }}
            rowProps={(d) => ({ "data-testid": "check-device", "data-allowed": String(d.allowed) })}
          />
        )}
      </CardBody>
    </Card>
  );
}
