"use client";

import { useTransition } from "react";
import { useRouter } from "next/navigation";
import { useLocale, useTranslations } from "next-intl";
import { ChevronDown, Languages } from "lucide-react";
import { LOCALE_COOKIE, LOCALES, type Locale } from "@/lib/i18n/negotiate";
import { cn } from "@/components/ui/cn";

const ONE_YEAR = 365 * 24 * 3600;

/** Native select (keyboard and screen-reader friendly everywhere); the choice is a cookie the server reads. */
export function LanguageSwitch({ className }: { className?: string }) {
  const t = useTranslations("language");
  const router = useRouter();
  const current = useLocale().split("-")[0] as Locale;
  const [pending, startTransition] = useTransition();

  function choose(locale: string) {
    document.cookie = `${LOCALE_COOKIE}=${locale}; path=/; max-age=${ONE_YEAR}; samesite=lax`;
    startTransition(() => router.refresh());
  }

  return (
    <div className={cn("relative flex items-center", className)}>
      <Languages className="pointer-events-none absolute left-2.5 size-4 text-fg-muted" aria-hidden />
      <select
        data-testid="language-switch"
        aria-label={t("label")}
        value={current}
        disabled={pending}
        onChange={(e) => choose(e.target.value)}
        className={cn(
          "h-8 w-full appearance-none rounded-md border border-border-strong bg-surface pl-8 pr-8 text-sm text-fg shadow-xs",
          "hover:bg-hover focus-visible:outline-2 focus-visible:outline-offset-2 disabled:opacity-60",
        )}
      >
        {LOCALES.map((l) => (
          <option key={l} value={l}>
            {t(l)}
          </option>
        ))}
      </select>
      <ChevronDown className="pointer-events-none absolute right-2.5 size-4 text-fg-muted" aria-hidden />
    </div>
  );
}
