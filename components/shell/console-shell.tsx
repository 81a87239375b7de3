"use client";

import { useEffect, type ReactNode } from "react";
import { MfaSetupGuard } from "@/components/mfa/mfa-setup-guard";
import { useTranslations } from "next-intl";
import { ApiBadRequestError } from "@/lib/api/client";
import { useCurrentUser } from "@/components/auth/use-current-user";
import { updateSession } from "@/components/auth/session-store";
import { useAppInfo, useEssentials } from "@/components/settings/queries";
import { toast } from "@/components/ui/toaster";
import { InlineError } from "@/components/ui/inline-error";
import { LoadingScreen } from "./loading-screen";
import { MobileBar } from "./mobile-bar";
import { visibleNav } from "./nav";
import { Sidebar } from "./sidebar";
import { useLayoutMode } from "./use-media-query";
import { OutdatedNotice, UpdateNotice } from "./update-notice";

/** The console frame (docs/ui.md): navigation on the left (rail on tablets, drawer on phones), page on the right. */
export function ConsoleShell({ children }: { children: ReactNode }) {
  const t = useTranslations("shell");
  const me = useCurrentUser();
  const essentials = useEssentials();
  const mode = useLayoutMode();

  useEffect(() => {
    if (me.data) updateSession({ user: me.data });
  }, [me.data]);

  // App info (version, licence): a failure says so once and is logged.
  const appInfo = useAppInfo();
  const appInfoFailed = appInfo.isError;
  useEffect(() => {
    if (!appInfoFailed) return;
    console.error("[console] failed to get the application version:", appInfo.error?.message);
    toast.error(t("versionFailed"), { meta: { customId: "app-info-failed" } });
  }, [appInfoFailed, appInfo.error, t]);

  // A 401 is handled by the query cache (back to the login page); keep the loading screen meanwhile.
  const sessionLost = me.error instanceof ApiBadRequestError && me.error.status === 401;
  if (me.isPending || sessionLost || (essentials.isPending && !essentials.data)) return <LoadingScreen />;
  if (me.isError) {
    return (
      <div className="mx-auto flex min-h-dvh max-w-lg items-center px-4">
        <InlineError
          className="w-full"
          message={t("userLoadFailed")}
          detail={me.error.message}
          onRetry={() => me.refetch()}
          retrying={me.isFetching}
        />
      </div>
    );
  }

  const user = me.data;
  const entries = visibleNav(user.is_admin, essentials.data);
  return (
    <div data-testid="app-shell" className="min-h-dvh md:flex">
      <MfaSetupGuard />
      {/* Admins only: the new-version toast and the outdated-components notice. */}
      {user.is_admin && <UpdateNotice />}
      {mode === "mobile" ? (
        <MobileBar entries={entries} user={user} />
      ) : (
        <aside className="sticky top-0 h-dvh shrink-0 border-r border-border">
          <Sidebar entries={entries} user={user} compact={mode === "compact"} />
        </aside>
      )}
      <main className="min-w-0 flex-1">
        <div className="mx-auto w-full max-w-6xl px-4 py-6 md:px-8 md:py-8">
          {user.is_admin && <OutdatedNotice />}
          {children}
        </div>
      </main>
    </div>
  );
}
