"use client";

import { useTranslations } from "next-intl";
import { Skeleton } from "@/components/ui/skeleton";
import { InlineError } from "@/components/ui/inline-error";
import { PageHeader } from "@/components/ui/page-header";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { useUrlState } from "@/components/users/url-state";
import { GlobalSettings } from "./global-settings";
import { GatewayNotificationsTab } from "./gateway-notifications-tab";
import { LogStreamsTab } from "./log-streams-tab";
import { EnterpriseTab } from "./enterprise-tab";
import { LicenceCard } from "./licence-card";
import { useEnterpriseSettings, useSettings } from "./queries";
import { SmtpSettings } from "./smtp-settings";
import { OpenidTab } from "@/components/extid/openid-tab";
import { LdapTab } from "./ldap-tab";

/** The tabs with content so far (of SMTP, Global, LDAP, OpenID, ...; the rest come later). */
const TABS = ["smtp", "global", "ldap", "openid", "enterprise", "gateway-notifications", "activity-log-streaming"] as const;
type Tab = (typeof TABS)[number];

function SettingsSkeleton() {
  return (
    <div className="flex flex-col gap-4" aria-hidden>
      <Skeleton className="h-80 rounded-lg" />
      <Skeleton className="h-32 rounded-lg" />
    </div>
  );
}

/** Settings (admin): one tab per area, the open tab kept in the address (?tab=). */
export function SettingsPage() {
  const t = useTranslations("settings");
  const { params, set } = useUrlState();
  const raw = params.get("tab") as Tab | null;
  const tab: Tab = raw && TABS.includes(raw) ? raw : "smtp";
  const settings = useSettings();
  const enterprise = useEnterpriseSettings();

  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <Tabs value={tab} onValueChange={(v) => set({ tab: v === "smtp" ? null : v })}>
        <TabsList aria-label={t("tabsLabel")}>
          {TABS.map((k) => (
            <TabsTrigger key={k} value={k} data-testid={`settings-tab-${k}`}>
              {t(`tabs.${k}`)}
            </TabsTrigger>
          ))}
        </TabsList>
        {settings.isError ? (
          <InlineError
            className="mt-4"
            message={t("loadFailed")}
            detail={settings.error.message}
            onRetry={() => settings.refetch()}
            retrying={settings.isFetching}
          />
        ) : (
          TABS.map((k) => (
            <TabsContent key={k} value={k} className="max-w-3xl">
              {k === "openid" ? (
                <OpenidTab />
              ) : k === "enterprise" ? (
                <div className="flex flex-col gap-4">
                  <LicenceCard />
                  {enterprise.data ? (
                    <EnterpriseTab settings={enterprise.data} />
                  ) : enterprise.isError ? (
                    <InlineError message={t("loadFailed")} detail={enterprise.error.message} onRetry={() => enterprise.refetch()} retrying={enterprise.isFetching} />
                  ) : (
                    <SettingsSkeleton />
                  )}
                </div>
              ) : !settings.data ? (
                <SettingsSkeleton />
              ) : k === "smtp" ? (
                <SmtpSettings settings={settings.data} />
              ) : k === "ldap" ? (
                <LdapTab settings={settings.data} />
              ) : k === "activity-log-streaming" ? (
                <LogStreamsTab />
              ) : k === "gateway-notifications" ? (
                <GatewayNotificationsTab settings={settings.data} />
              ) : (
                <GlobalSettings settings={settings.data} />
              )}
            </TabsContent>
          ))
        )}
      </Tabs>
    </>
  );
}
