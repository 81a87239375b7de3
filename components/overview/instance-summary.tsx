"use client";

import type { ReactNode } from "react";
import { useFormatter, useTranslations } from "next-intl";
import { Building2, KeyRound, Network, Users } from "lucide-react";
import type { AppInfo, Essentials } from "@/lib/api/types";
import { useAppInfo, useEssentials } from "@/components/settings/queries";
import { FALLBACK_INSTANCE_NAME } from "@/components/settings/defaults";
import { Badge } from "@/components/ui/badge";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { InlineError } from "@/components/ui/inline-error";
import { Skeleton } from "@/components/ui/skeleton";
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
          footer={<Badge tone={licence.tone} className="h-auto min-h-5 whitespace-normal py-0.5">{t(`licence.${licence.key}Note`)}</Badge>}
        />
        <StatTile
          icon={Network}
          label={t("locations.label")}
          value={info.network_present ? t("locations.present") : t("locations.none")}
        />
      </div>

      <div className="grid gap-4 lg:grid-cols-2 lg:items-start">
        <Card>
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
      <div className="grid gap-4 lg:grid-cols-2">
        {[0, 1].map((i) => (
          <Card key={i}>
            <div className="border-b border-border px-4 py-3">
              <Skeleton className="h-5 w-40" />
            </div>
            <div className="flex flex-col gap-4 p-4">
              {[0, 1, 2, 3].map((j) => (
                <Skeleton key={j} className="h-6 w-full" />
              ))}
            </div>
          </Card>
        ))}
      </div>
    </div>
  );
}

/** The instance at a glance: name, version, users, licence and limits, integrations and modules. */
export function InstanceSummary({ freeLimits }: { freeLimits: FreeLimits }) {
  const t = useTranslations("overview");
  const info = useAppInfo();
  const essentials = useEssentials();
  return (
    <section aria-labelledby="overview-instance" className="flex flex-col gap-3" data-testid="overview-instance">
      <h2 id="overview-instance" className="text-sm font-semibold text-fg">
        {t("instanceSection")}
      </h2>
      {info.isPending ? (
        <SummarySkeleton />
      ) : info.isError ? (
        <InlineError message={t("loadFailed")} detail={info.error.message} onRetry={() => info.refetch()} retrying={info.isFetching} />
      ) : (
        <Summary info={info.data} essentials={essentials.data} freeLimits={freeLimits} />
      )}
    </section>
  );
}
