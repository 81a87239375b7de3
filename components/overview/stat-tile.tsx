import type { ReactNode } from "react";
import type { LucideIcon } from "lucide-react";
import { Card } from "@/components/ui/card";
import { Skeleton } from "@/components/ui/skeleton";

interface StatTileProps {
  icon: LucideIcon;
  label: string;
  value: ReactNode;
  footer?: ReactNode;
}

/** One headline fact of the overview. */
export function StatTile({ icon: Icon, label, value, footer }: StatTileProps) {
  return (
    <Card className="flex flex-col gap-2 p-4">
      <p className="flex items-center gap-2 text-xs font-medium text-fg-muted">
        <Icon className="size-4 shrink-0" aria-hidden />
        {label}
      </p>
      <div className="truncate text-lg font-semibold text-fg">{value}</div>
      {footer && <div className="mt-auto flex flex-wrap items-center gap-2 text-xs text-fg-muted">{footer}</div>}
    </Card>
  );
}

export function StatTileSkeleton() {
  return (
    <Card className="flex flex-col gap-2 p-4">
      <Skeleton className="h-4 w-24" />
      <Skeleton className="h-6 w-36" />
      <Skeleton className="mt-auto h-4 w-20" />
    </Card>
  );
}
