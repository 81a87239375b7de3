"use client";

import type { ReactNode } from "react";
import { useFormatter, useTranslations } from "next-intl";
import { Building2, KeyRound, Network, Users } from "lucide-react";
import type { AppInfo, Essentials } from "@/lib/api/types";
import { useAppInfo, useEssentials } from "@/components/settings/queries";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { InlineError } from "@/components/ui/inline-error";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { FALLBACK_INSTANCE_NAME } from "@/components/settings/defaults";
import { useUserCount } from "./queries";
import { StatTile, StatTileSkeleton } from "./stat-tile";

export interface FreeLimits {
  users: number;
  devices: number;
  locations: number;
  networkDevices: number;
}

type LicenceInfo = AppInfo["license_info"];

const LIMIT_ROWS = [
  { key: "user", limit: "users" },
  { key: "device", limit: "devices" },
  { key: "wireguard_network", limit: "locations" },
  { key: "network_device", limit: "networkDevices" },
] as const;

const MODULES = ["wireguard_enabled", "openid_enabled", "webhooks_enabled", "worker_enabled"] as const;

function licenceState(li: LicenceInfo): { key: "limitsExceeded" | "freeTier" | "licensed" | "none"; tone: "warning" | "success" | "neutral" } {
  if (li.any_limit_exceeded) return { key: "limitsExceeded", tone: "warning" };
  if (li.is_enterprise_free) return { key: "freeTier", tone: "success" };
  if (li.enterprise) return { key: "licensed", tone: "success" };
  return { key: "none", tone: "neutral" };
}

function OnOff({ on, onLabel, offLabel }: { on: boolean; onLabel: string; offLabel: string }) {
  return <Badge tone={on ? "success" : "neutral"}>{on ? onLabel : offLabel}</Badge>;
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <li className="flex min-h-10 items-center justify-between gap-4 py-2 text-sm">
      <span className="text-fg">{label}</span>
      <span className="flex shrink-0 items-center gap-2">{children}</span>
    </li>
  );
}

function UsersTile() {
  const t = useTranslations("overview");
  const format = useFormatter();
  const count = useUserCount();
  return (
    <StatTile
      icon={Users}
      label={t("users.label")}
      value={
        count.isPending ? (
          <Skeleton className="h-6 w-12" />
        ) : count.isError ? (
          <span className="text-fg-subtle" title={count.error.message}>
            {t("users.unknown")}
          </span>
        ) : (
          format.number(count.data)
        )
      }
      footer={count.isError && t("users.loadFailed")}
    />
  );
}

function Summary({ info, essentials, freeLimits }: { info: AppInfo; essentials?: Essentials; freeLimits: FreeLimits }) {
  const t = useTranslations("overview");
  const licence = licenceState(info.license_info);
  const li = info.license_info;

  return (
    <div className="flex flex-col gap-4">
      <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <StatTile
          icon={Building2}
          label={t("instance")}
          value={essentials?.instance_name || FALLBACK_INSTANCE_NAME}
          footer={t.rich("version", { version: info.version, mono: (v) => <span className="font-mono">{v}</span> })}
        />
        <UsersTile />
        <StatTile
          icon={KeyRound}
          label={t("licence.label")}
          value={li.tier || t(`licence.${licence.key}`)}
          footer={<Badge tone={licence.tone}>{t(`licence.${licence.key}Note`)}</Badge>}
        />
        <StatTile
          icon={Network}
          label={t("locations.label")}
          value={info.network_present ? t("locations.present") : t("locations.none")}
        />
      </div>

      <div className="grid gap-4 lg:grid-cols-3 lg:items-start">
        <Card className="lg:col-span-2">
          <CardHeader
            title={t("limits.title")}
            description={li.is_enterprise_free ? t("limits.freeDescription") : t("limits.licensedDescription")}
          />
          <CardBody className="py-1">
            <ul className="divide-y divide-border">
              {LIMIT_ROWS.map(({ key, limit }) => (
                <Row key={key} label={t(`limits.${key}`)}>
                  {li.is_enterprise_free && (
                    <span className="text-xs text-fg-muted">
                      {t("limits.upTo", { count: freeLimits[limit] })}
                    </span>
                  )}
                  <Badge tone={li.limits_exceeded[key] ? "warning" : "success"}>
                    {li.limits_exceeded[key] ? t("limits.exceeded") : t("limits.within")}
                  </Badge>
                </Row>
              ))}
            </ul>
          </CardBody>
        </Card>

        <Card>
          <CardHeader title={t("integrations.title")} />
          <CardBody className="py-1">
            <ul className="divide-y divide-border">
              <Row label={t("integrations.ldap")}>
                {info.ldap_info.enabled && info.ldap_info.ad && <Badge tone="info">{t("integrations.ad")}</Badge>}
                <OnOff on={info.ldap_info.enabled} onLabel={t("enabled")} offLabel={t("disabled")} />
              </Row>
              <Row label={t("integrations.smtp")}>
                <OnOff on={info.smtp_enabled} onLabel={t("integrations.configured")} offLabel={t("integrations.notConfigured")} />
              </Row>
              <Row label={t("integrations.externalOpenid")}>
                <OnOff on={info.external_openid_enabled} onLabel={t("enabled")} offLabel={t("disabled")} />
              </Row>
              {essentials &&
                MODULES.map((m) => (
                  <Row key={m} label={t(`modules.${m}`)}>
                    <OnOff on={essentials[m]} onLabel={t("enabled")} offLabel={t("disabled")} />
                  </Row>
                ))}
            </ul>
          </CardBody>
        </Card>
      </div>

      {!info.network_present && (
        <Card>
          <EmptyState icon={Network} title={t("locations.emptyTitle")} description={t("locations.emptyDescription")} />
        </Card>
      )}
    </div>
  );
}

function SummarySkeleton() {
  return (
    <div className="flex flex-col gap-4" aria-hidden>
      <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
        {[0, 1, 2, 3].map((i) => (
          <StatTileSkeleton key={i} />
        ))}
      </div>
      <div className="grid gap-4 lg:grid-cols-3">
        {[2, 1].map((span) => (
          <Card key={span} className={span === 2 ? "lg:col-span-2" : undefined}>
            <div className="border-b border-border px-4 py-3">
              <Skeleton className="h-5 w-40" />
            </div>
            <div className="flex flex-col gap-4 p-4">
              {[0, 1, 2, 3].map((i) => (
                <Skeleton key={i} className="h-6 w-full" />
              ))}
            </div>
          </Card>
        ))}
      </div>
    </div>
  );
}

/** VPN Overview for admins: an honest summary of what exists so far (instance, licence, limits, integrations). */
export function OverviewDashboard({ freeLimits }: { freeLimits: FreeLimits }) {
  const t = useTranslations("overview");
  const info = useAppInfo();
  const essentials = useEssentials();
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      {info.isPending ? (
        <SummarySkeleton />
      ) : info.isError ? (
        <InlineError
          message={t("loadFailed")}
          detail={info.error.message}
          onRetry={() => info.refetch()}
          retrying={info.isFetching}
        />
      ) : (
        <Summary info={info.data} essentials={essentials.data} freeLimits={freeLimits} />
      )}
    </>
  );
}
