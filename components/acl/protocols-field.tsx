"use client";

import { useTranslations } from "next-intl";
import { ACL_PROTOCOLS } from "@/lib/acl/schema";
import { Checkbox } from "@/components/ui/checkbox";
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
