"use client";

import { useTransition } from "react";
import { useRouter } from "next/navigation";
import { ChevronDown, Languages } from "lucide-react";
import { LOCALE_COOKIE } from "@/lib/i18n/negotiate";

const ONE_YEAR = 365 * 24 * 3600;

interface LocaleSelectProps {
  current: string;
  label: string;
  options: { value: string; label: string }[];
}

/**
 * The sign-in page's language switch: the console's LanguageSwitch (components/i18n) without the
 * client translation runtime, its texts rendered on the server. The choice is the same cookie.
 */
export function LocaleSelect({ current, label, options }: LocaleSelectProps) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  return (
    <div className="relative flex w-36 items-center">
      <Languages className="pointer-events-none absolute left-2.5 size-4 text-fg-muted" aria-hidden />
      <select
        data-testid="language-switch"
        aria-label={label}
        value={current}
        disabled={pending}
        onChange={(e) => {
          document.cookie = `${LOCALE_COOKIE}=${e.target.value}; path=/; max-age=${ONE_YEAR}; samesite=lax`;
          startTransition(() => router.refresh());
        }}
        className="h-8 w-full appearance-none rounded-md border border-border-strong bg-surface pl-8 pr-8 text-sm text-fg shadow-xs hover:bg-hover focus-visible:outline-2 focus-visible:outline-offset-2 disabled:opacity-60"
      >
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <ChevronDown className="pointer-events-none absolute right-2.5 size-4 text-fg-muted" aria-hidden />
    </div>
  );
}
