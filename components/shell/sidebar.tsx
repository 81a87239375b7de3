"use client";

import Link from "next/link";
import { useTranslations } from "next-intl";
import type { UserInfo } from "@/lib/api/types";
import { cn } from "@/components/ui/cn";
import { NavBrand } from "./brand";
import type { NavEntry } from "./nav";
import { NavList } from "./nav-list";
import { UserMenu } from "./user-menu";

interface SidebarProps {
  entries: NavEntry[];
  user: UserInfo;
  /** Icon rail (tablet) instead of the labelled list. */
  compact?: boolean;
  /** Called after a link is followed (closes the phone drawer). */
  onNavigate?: () => void;
  className?: string;
}

/** Logo and instance name, the main entries, then My Profile, Log out and the user menu. */
export function Sidebar({ entries, user, compact = false, onNavigate, className }: SidebarProps) {
  const t = useTranslations("nav");
  const main = entries.filter((e) => e.placement === "main");
  const bottom = entries.filter((e) => e.placement === "bottom");
  return (
    <nav
      data-testid="nav"
      aria-label={t("label")}
      className={cn("flex h-full flex-col bg-surface", compact ? "w-16 items-center" : "w-60", className)}
    >
      <Link
        href="/"
        onClick={onNavigate}
        aria-label={t("home")}
        className={cn("flex h-14 shrink-0 items-center rounded-md focus-visible:outline-2", compact ? "justify-center" : "px-4")}
      >
        <NavBrand showName={!compact} />
      </Link>
      <div className={cn("flex min-h-0 w-full flex-1 flex-col overflow-y-auto py-2", compact ? "px-2" : "px-3")}>
        <NavList entries={main} compact={compact} onNavigate={onNavigate} />
      </div>
      <div className={cn("flex w-full flex-col gap-2 border-t border-border py-3", compact ? "items-center px-2" : "px-3")}>
        <NavList entries={bottom} compact={compact} onNavigate={onNavigate} />
        <UserMenu user={user} compact={compact} side={compact ? "right" : "top"} />
      </div>
    </nav>
  );
}
