"use client";

import { useTranslations } from "next-intl";
import { CircleCheck, CircleDashed, CircleOff, CirclePlus, Clock, PencilLine, Trash2 } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { aliasState, ruleState, type AclAlias, type AclRule } from "./api";

/** How each shown state looks: its badge tone and icon (the text is `acl.state.<state>`). */
const RULE_STATES = {
  new: { tone: "info", icon: CirclePlus },
  modified: { tone: "warning", icon: PencilLine },
  deleted: { tone: "error", icon: Trash2 },
  expired: { tone: "neutral", icon: Clock },
  applied: { tone: "success", icon: CircleCheck },
  disabled: { tone: "neutral", icon: CircleOff },
} as const;

/**
 * A rule's state: pending changes (new, modified, marked for deletion) say so; a deployed rule
 * says whether the gateways enforce it (enabled), skip it (disabled) or it ran out (expired).
 */
export function RuleStateBadge({ rule }: { rule: Pick<AclRule, "state" | "enabled"> }) {
  const t = useTranslations("acl.state");
  const s = ruleState(rule);
  const shown = s === "new" || s === "modified" || s === "deleted" || s === "expired" ? s : rule.enabled ? "applied" : "disabled";
  const { tone, icon: Icon } = RULE_STATES[shown];
  return (
    <Badge tone={tone} data-testid="rule-state" data-state={shown}>
      <Icon aria-hidden />
      {t(shown)}
    </Badge>
  );
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
