"use client";

import { useTranslations } from "next-intl";
import { CircleCheck, CircleDashed, CircleOff, CirclePlus, Clock, PencilLine, Trash2 } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { aliasState, ruleState, type AclAlias, type AclRule } from "./api";

/**
 * A rule's state: pending changes (new, modified, marked for deletion) say so; a deployed rule
 * says whether the gateways enforce it (enabled), skip it (disabled) or it ran out (expired).
 */
export function RuleStateBadge({ rule }: { rule: Pick<AclRule, "state" | "enabled"> }) {
  const t = useTranslations("acl.state");
  const s = ruleState(rule);
  const props = { "data-testid": "rule-state", "data-state": s } as const;
  switch (s) {
    case "new":
      return (
        <Badge tone="info" {...props}>
          <CirclePlus aria-hidden />
          {t("new")}
        </Badge>
      );
    case "modified":
      return (
        <Badge tone="warning" {...props}>
          <PencilLine aria-hidden />
          {t("modified")}
        </Badge>
      );
    case "deleted":
      return (
        <Badge tone="error" {...props}>
          <Trash2 aria-hidden />
          {t("deleted")}
        </Badge>
      );
    case "expired":
      return (
        <Badge tone="neutral" {...props}>
          <Clock aria-hidden />
          {t("expired")}
        </Badge>
      );
    default:
      return rule.enabled ? (
        <Badge tone="success" {...props} data-state="applied">
          <CircleCheck aria-hidden />
          {t("applied")}
        </Badge>
      ) : (
        <Badge tone="neutral" {...props} data-state="disabled">
          <CircleOff aria-hidden />
          {t("disabled")}
        </Badge>
      );
  }
}

export function AliasStateBadge({ alias }: { alias: Pick<AclAlias, "state"> }) {
  const t = useTranslations("acl.state");
  const s = aliasState(alias);
  return s === "modified" ? (
    <Badge tone="warning" data-testid="alias-state" data-state={s}>
      <CircleDashed aria-hidden />
      {t("changed")}
    </Badge>
  ) : (
    <Badge tone="success" data-testid="alias-state" data-state="applied">
      <CircleCheck aria-hidden />
      {t("applied")}
    </Badge>
  );
}
