"use client";

import { useTranslations } from "next-intl";
import { Badge } from "@/components/ui/badge";
import { cn } from "@/components/ui/cn";

export interface Chip {
  key: string;
  label: string;
  /** Plain text (an "everyone" label, a raw address) rather than a named object. */
  plain?: boolean;
  mono?: boolean;
}

/** A few labels of a table cell, then "+N"; the full list is in the title for hovering. */
export function Chips({ items, max = 3, empty, className }: { items: Chip[]; max?: number; empty?: string; className?: string }) {
  const t = useTranslations("acl");
  if (items.length === 0) return <span className="text-fg-subtle">{empty ?? "—"}</span>;
  const shown = items.slice(0, max);
  const rest = items.length - shown.length;
  return (
    <span className={cn("flex min-w-0 flex-wrap items-center gap-1", className)} title={items.map((i) => i.label).join(", ")}>
      {shown.map((c) =>
        c.plain ? (
          <span key={c.key} className={cn("text-xs text-fg", c.mono && "font-mono")}>
            {c.label}
          </span>
        ) : (
          <Badge key={c.key} className={cn("max-w-40 truncate", c.mono && "font-mono")}>
            {c.label}
          </Badge>
        ),
      )}
      {rest > 0 && <span className="text-xs text-fg-muted">{t("more", { count: rest })}</span>}
    </span>
  );
}
