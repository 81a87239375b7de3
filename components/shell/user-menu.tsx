"use client";

import { useTranslations } from "next-intl";
import { ChevronsUpDown } from "lucide-react";
import type { UserInfo } from "@/lib/api/types";
import { LanguageSwitch } from "@/components/i18n/language-switch";
import { ThemeSwitch } from "@/components/theme/theme-switch";
import { cn } from "@/components/ui/cn";
import { Popover, PopoverContent, PopoverTrigger } from "@/components/ui/popover";
import { displayName, UserAvatar } from "./user-avatar";

interface UserMenuProps {
  user: UserInfo;
  /** Avatar only (icon rail, phone bar). */
  compact?: boolean;
  side?: "top" | "bottom" | "right";
}

/** Who is signed in, with the appearance and language preferences. */
export function UserMenu({ user, compact, side = "top" }: UserMenuProps) {
  const t = useTranslations("userMenu");
  const name = displayName(user);
  return (
    <Popover>
      <PopoverTrigger
        data-testid="user-menu"
        aria-label={t("open", { name })}
        className={cn(
          "flex items-center gap-2.5 rounded-md text-left hover:bg-hover focus-visible:outline-2 data-[state=open]:bg-hover",
          compact ? "size-10 justify-center" : "w-full px-2 py-1.5",
        )}
      >
        <UserAvatar user={user} />
        {!compact && (
          <>
            <span className="min-w-0 flex-1">
              <span className="block truncate text-sm font-medium text-fg">{name}</span>
              <span className="block truncate text-xs text-fg-muted">{user.email || user.username}</span>
            </span>
            <ChevronsUpDown className="size-4 shrink-0 text-fg-subtle" aria-hidden />
          </>
        )}
      </PopoverTrigger>
      <PopoverContent side={side} align={compact ? "end" : "start"} className="w-64">
        <div className="mb-3 flex items-center gap-2.5 border-b border-border pb-3">
          <UserAvatar user={user} size={32} />
          <div className="min-w-0">
            <p className="truncate text-sm font-medium">{name}</p>
            <p className="truncate text-xs text-fg-muted">{user.username}</p>
          </div>
        </div>
        <div className="flex flex-col gap-3">
          <div className="flex flex-col gap-1.5">
            <p className="text-xs font-medium text-fg-muted">{t("theme")}</p>
            <ThemeSwitch />
          </div>
          <div className="flex flex-col gap-1.5">
            <p className="text-xs font-medium text-fg-muted">{t("language")}</p>
            <LanguageSwitch />
          </div>
        </div>
      </PopoverContent>
    </Popover>
  );
}
