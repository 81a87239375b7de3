"use client";

import { useTranslations } from "next-intl";
import { CircleAlert, CircleCheck, CircleDashed, CircleSlash } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import type { GatewayStatus } from "./api";

const TONE = { all: "success", some: "warning", none: "neutral", failed: "error" } as const;
const ICON = { all: CircleCheck, some: CircleDashed, none: CircleSlash, failed: CircleAlert } as const;

/** All / some / none connected, or the status check failed. */
export function GatewayStatusBadge({ status, className }: { status: GatewayStatus; className?: string }) {
  const t = useTranslations("gateways.status");
  const Icon = ICON[status];
  return (
    <Badge tone={TONE[status]} className={className} data-testid="gateway-status" data-status={status}>
      <Icon aria-hidden />
      {t(status)}
    </Badge>
  );
}
