"use client";

import { DEFAULT_MAIN_LOGO, DEFAULT_NAV_LOGO, FALLBACK_INSTANCE_NAME } from "@/components/settings/defaults";
import { useEssentials } from "@/components/settings/queries";
import { cn } from "@/components/ui/cn";

/** Instance branding from the essentials, with the built-in defaults until they are known. */
export function useBranding() {
  const { data } = useEssentials();
  return {
    name: data?.instance_name || FALLBACK_INSTANCE_NAME,
    navLogo: data?.nav_logo_url || DEFAULT_NAV_LOGO,
    mainLogo: data?.main_logo_url || DEFAULT_MAIN_LOGO,
  };
}

/** The nav logo (at most 100x100, shown at 28 px) with the instance name beside it. */
export function NavBrand({ showName = true, className }: { showName?: boolean; className?: string }) {
  const { name, navLogo } = useBranding();
  return (
    <div className={cn("flex min-w-0 items-center gap-2.5", className)}>
      <img src={navLogo} alt="" width={28} height={28} className="size-7 shrink-0 object-contain" />
      {showName && <span className="truncate text-sm font-semibold text-fg">{name}</span>}
    </div>
  );
}
