import type { ReactNode } from "react";

/** The heading of a list on the Access Control page: title, count, one line, an action on the right. */
export function SectionTitle({ id, title, count, description, action }: { id: string; title: string; count?: number; description?: string; action?: ReactNode }) {
  return (
    <div className="flex flex-wrap items-end justify-between gap-x-4 gap-y-2">
      <div className="min-w-0">
        <h2 id={id} className="flex items-center gap-2 text-base font-semibold text-fg">
          {title}
          {count !== undefined && (
            <span className="rounded-full bg-subtle px-2 py-0.5 text-xs font-medium tabular-nums text-fg-muted ring-1 ring-inset ring-border" data-testid={`${id}-count`}>
              {count}
            </span>
          )}
        </h2>
        {description && <p className="mt-0.5 text-sm text-fg-muted">{description}</p>}
      </div>
      {action && <div className="flex shrink-0 items-center gap-2">{action}</div>}
    </div>
  );
}
