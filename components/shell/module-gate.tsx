import type { ReactNode } from "react";
import Link from "next/link";
import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { PowerOff } from "lucide-react";
import { Button } from "@/components/ui/button";
import type { ModuleName } from "@/lib/auth/modules";
import { getPageSession } from "@/lib/auth/page-guard";

/**
 * A module's screens (server component, used by the module's layouts): while the module is
 * switched off in Settings → Global they show this notice instead (its API routes answer 403
 * module_disabled, its navigation entries are hidden).
 */
export async function ModuleGate({ module, children, elsewhere }: { module: ModuleName; children: ReactNode; elsewhere?: string }) {
  const session = await getPageSession();
  if (!session?.policy.disabledModules.includes(module)) return children;
  // A landing page (the overview, where admins arrive after sign-in) sends them on instead.
  if (elsewhere) redirect(elsewhere);
  const t = await getTranslations("moduleOff");
  return (
    <div data-testid="module-off" data-module={module} className="flex min-h-[60dvh] flex-col items-center justify-center gap-3 text-center">
      <div className="mb-1 flex size-12 items-center justify-center rounded-lg bg-subtle text-fg-muted">
        <PowerOff className="size-6" aria-hidden />
      </div>
      <h1 className="text-xl font-semibold text-fg">{t("title", { module: t(`modules.${module}`) })}</h1>
      <p className="max-w-sm text-sm text-fg-muted">{session.user.isAdmin ? t("descriptionAdmin") : t("description")}</p>
      {session.user.isAdmin && (
        <Button asChild variant="secondary" className="mt-2">
          <Link href="/settings?tab=global">{t("action")}</Link>
        </Button>
      )}
    </div>
  );
}
