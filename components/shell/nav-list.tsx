"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useTranslations } from "next-intl";
import { cn } from "@/components/ui/cn";
import { Tooltip } from "@/components/ui/tooltip";
import { useLogout } from "@/components/auth/use-logout";
import { Spinner } from "@/components/ui/spinner";
import { isActive, type NavEntry } from "./nav";

const itemClasses = (active: boolean, compact: boolean) =>
  cn(
    "flex h-8 w-full items-center gap-2.5 rounded-md text-sm font-medium transition-colors focus-visible:outline-2",
    compact ? "size-10 justify-center" : "px-2",
    active ? "bg-accent-subtle text-accent" : "text-fg-muted hover:bg-hover hover:text-fg",
  );

interface NavItemProps {
  entry: NavEntry;
  compact: boolean;
  onNavigate?: () => void;
}

function NavItem({ entry, compact, onNavigate }: NavItemProps) {
  const t = useTranslations("nav");
  const pathname = usePathname();
  const logout = useLogout();
  const label = t(entry.key);
  const Icon = entry.icon;
  const active = isActive(entry, pathname);

  const content = entry.href ? (
    <Link
      href={entry.href}
      data-testid={`nav-item-${entry.key}`}
      aria-current={active ? "page" : undefined}
      aria-label={compact ? label : undefined}
      onClick={onNavigate}
      className={itemClasses(active, compact)}
    >
      <Icon className="size-4 shrink-0" aria-hidden />
      {!compact && <span className="truncate">{label}</span>}
    </Link>
  ) : (
    <button
      type="button"
      data-testid={entry.key}
      aria-label={compact ? label : undefined}
      disabled={logout.isPending}
      onClick={() => logout.mutate()}
      className={itemClasses(false, compact)}
    >
      {logout.isPending ? <Spinner size={16} /> : <Icon className="size-4 shrink-0" aria-hidden />}
      {!compact && <span className="truncate">{label}</span>}
    </button>
  );

  return <li>{compact ? <Tooltip content={label} side="right">{content}</Tooltip> : content}</li>;
}

interface NavListProps {
  entries: NavEntry[];
  compact: boolean;
  onNavigate?: () => void;
  className?: string;
}

export function NavList({ entries, compact, onNavigate, className }: NavListProps) {
  return (
    <ul className={cn("flex flex-col gap-0.5", compact && "items-center", className)}>
      {entries.map((entry) => (
        <NavItem key={entry.key} entry={entry} compact={compact} onNavigate={onNavigate} />
      ))}
    </ul>
  );
}
