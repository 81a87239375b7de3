"use client";

import { useSyncExternalStore } from "react";
import { useTranslations } from "next-intl";
import { Monitor, Moon, Sun, type LucideIcon } from "lucide-react";
import { cn } from "@/components/ui/cn";
import { readThemePreference, setThemePreference, subscribeTheme, type ThemePreference } from "./theme";

const OPTIONS: { value: ThemePreference; icon: LucideIcon }[] = [
  { value: "system", icon: Monitor },
  { value: "light", icon: Sun },
  { value: "dark", icon: Moon },
];

export function useThemePreference(): ThemePreference {
  return useSyncExternalStore(subscribeTheme, readThemePreference, () => "system");
}

/** Three-way segmented control: follow the system, light, dark. */
export function ThemeSwitch() {
  const t = useTranslations("theme");
  const current = useThemePreference();
  return (
    <div role="radiogroup" aria-label={t("label")} className="grid grid-cols-3 gap-1 rounded-md bg-subtle p-1">
      {OPTIONS.map(({ value, icon: Icon }) => (
        <button
          key={value}
          type="button"
          role="radio"
          aria-checked={current === value}
          onClick={() => setThemePreference(value)}
          className={cn(
            "flex h-7 items-center justify-center gap-1.5 rounded-sm text-xs font-medium text-fg-muted transition-colors",
            "hover:text-fg focus-visible:outline-2",
            current === value && "bg-surface text-fg shadow-sm",
          )}
        >
          <Icon className="size-3.5" aria-hidden />
          {t(value)}
        </button>
      ))}
    </div>
  );
}
