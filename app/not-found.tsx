import Link from "next/link";
import { getTranslations } from "next-intl/server";
import { Compass } from "lucide-react";
import { Button } from "@/components/ui/button";

export default async function NotFound() {
  const t = await getTranslations("notFound");
  return (
    <main className="flex min-h-dvh flex-col items-center justify-center gap-3 px-4 text-center">
      <div className="mb-1 flex size-12 items-center justify-center rounded-lg bg-subtle text-fg-muted ring-1 ring-inset ring-border">
        <Compass className="size-6" aria-hidden />
      </div>
      <p className="text-xs font-medium uppercase tracking-wider text-fg-subtle">404</p>
      <h1 className="text-xl font-semibold text-fg">{t("title")}</h1>
      <p className="max-w-sm text-sm text-fg-muted">{t("description")}</p>
      <Button asChild variant="secondary" className="mt-2">
        <Link href="/">{t("action")}</Link>
      </Button>
    </main>
  );
}
