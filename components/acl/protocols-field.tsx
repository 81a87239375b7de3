"use client";

import { useTranslations } from "next-intl";
import { ACL_PROTOCOLS } from "@/lib/acl/schema";
import { Controller, type FieldValues, type Path, type UseFormReturn } from "react-hook-form";
import { Checkbox } from "@/components/ui/checkbox";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { protocolName } from "./api";

/** TCP, UDP, ICMP as checkboxes; none checked means every protocol. */
export function ProtocolsField({ value, onChange, testId }: { value: number[]; onChange: (v: number[]) => void; testId: string }) {
  const t = useTranslations("acl");
  const order = [6, 17, 1].filter((p) => (ACL_PROTOCOLS as readonly number[]).includes(p));
  return (
    <div role="group" aria-label={t("protocolsLabel")} className="flex flex-wrap items-center gap-x-5 gap-y-2" data-testid={testId}>
      {order.map((p) => {
        const id = `${testId}-${p}`;
        return (
          <label key={p} htmlFor={id} className="flex items-center gap-2 text-sm text-fg">
            <Checkbox
              id={id}
              data-testid={`${testId}-${protocolName(p).toLowerCase()}`}
              checked={value.includes(p)}
              onCheckedChange={(c) => onChange(c === true ? [...value.filter((x) => x !== p), p].sort((a, b) => b - a) : value.filter((x) => x !== p))}
            />
            {protocolName(p)}
          </label>
        );
      })}
      {value.length === 0 && <span className="text-xs text-fg-muted">{t("anyProtocol")}</span>}
    </div>
  );
}

/** The form values both the rule page and the alias dialog edit as a destination. */
interface DestinationValues extends FieldValues {
  destination?: string;
  ports?: string;
  protocols?: number[];
}

/**
 * Addresses, ports and protocols: the destination part of a rule and of an alias (same fields,
 * same zod rules in lib/acl/schema.ts). `t` is the caller's namespace, which has `destination`,
 * `destinationHint`, `ports`, `portsHint` and `protocols`.
 */
export function DestinationFields<T extends DestinationValues>({
  form,
  errorOf,
  t,
  testIdPrefix,
}: {
  form: UseFormReturn<T>;
  errorOf: (field: "destination" | "ports" | "protocols") => string | undefined;
  t: (key: "destination" | "destinationHint" | "ports" | "portsHint" | "protocols") => string;
  testIdPrefix: string;
}) {
  return (
    <>
      <Field label={t("destination")} error={errorOf("destination")} hint={t("destinationHint")}>
        <Textarea
          data-testid={`${testIdPrefix}-destination`}
          rows={3}
          className="font-mono"
          spellCheck={false}
          placeholder="192.0.2.0/24, 198.51.100.10-198.51.100.20"
          {...form.register("destination" as Path<T>)}
        />
      </Field>
      <Field label={t("ports")} error={errorOf("ports")} hint={t("portsHint")}>
        <Input data-testid={`${testIdPrefix}-ports`} className="font-mono" autoComplete="off" placeholder="22, 443, 8000-8080" {...form.register("ports" as Path<T>)} />
      </Field>
      <Field label={t("protocols")} error={errorOf("protocols")}>
        <Controller
          control={form.control}
          name={"protocols" as Path<T>}
          render={({ field }) => <ProtocolsField value={(field.value as number[] | undefined) ?? []} onChange={field.onChange} testId={`${testIdPrefix}-protocols`} />}
        />
      </Field>
    </>
  );
}
