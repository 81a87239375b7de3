import type { ReactNode } from "react";
import type { LucideIcon } from "lucide-react";
import { cn } from "./cn";

interface EmptyStateProps {
  icon: LucideIcon;
  title: ReactNode;
  /** One sentence that says what to do next. */
  description?: ReactNode;
  action?: ReactNode;
  className?: string;
}

export function EmptyState({ icon: Icon, title, description, action, className }: EmptyStateProps) {
  return (
    <div className={cn("flex flex-col items-center justify-center gap-2 px-6 py-10 text-center", className)}>
      <div className="mb-1 flex size-10 items-center justify-center rounded-lg bg-subtle text-fg-muted ring-1 ring-inset ring-border">
        <Icon className="size-5" aria-hidden />
      </div>
      <p className="text-base font-medium text-fg">{title}</p>
      {description && <p className="max-w-sm text-sm text-fg-muted">{description}</p>}
      {action && <div className="mt-2">{action}</div>}
    </div>
  );
}
