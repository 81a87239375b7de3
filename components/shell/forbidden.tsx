import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { ShieldX } from "lucide-react";
import { Button } from "@/components/ui/button";

/** 403 screen for a signed-in user who opened a page they may not use. */
export async function Forbidden() {
  const t = await getTranslations("forbidden");
  return (
    <div data-testid="forbidden" className="flex min-h-[60dvh] flex-col items-center justify-center gap-3 text-center">
      <div className="mb-1 flex size-12 items-center justify-center rounded-lg bg-error-subtle text-error">
        <ShieldX className="size-6" aria-hidden />
      </div>
      <p className="text-xs font-medium uppercase tracking-wider text-fg-subtle">403</p>
      <h1 className="text-xl font-semibold text-fg">{t("title")}</h1>
      <p className="max-w-sm text-sm text-fg-muted">{t("description")}</p>
      <Button asChild variant="secondary" className="mt-2">
        <Link href="/me">{t("action")}</Link>
      </Button>
    </div>
  );
}
