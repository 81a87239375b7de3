import { ChevronRight, type LucideIcon } from "lucide-react";
import { Badge } from "@/components/ui/badge";

/** One MFA method to pick, as a list item (the forced set-up screen and the enrolment MFA step). */
interface MethodOptionProps {
  icon: LucideIcon;
  title: string;
  description: string;
  badge?: string;
  disabled?: boolean;
  onClick: () => void;
  testId: string;
}

export function MethodOption({ icon: Icon, title, description, badge, disabled, onClick, testId }: MethodOptionProps) {
  return (
    <li>
      <button
        type="button"
        data-testid={testId}
        disabled={disabled}
        onClick={onClick}
        className="group flex w-full items-center gap-3 rounded-lg border border-border bg-surface px-4 py-3.5 text-left transition-colors hover:border-accent/50 hover:bg-hover focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-ring disabled:pointer-events-none disabled:opacity-55"
      >
        <span className="flex size-9 shrink-0 items-center justify-center rounded-md bg-accent-subtle text-accent">
          <Icon className="size-4" aria-hidden />
        </span>
        <span className="min-w-0 flex-1">
          <span className="flex flex-wrap items-center gap-2 text-sm font-medium text-fg">
            {title}
            {badge && <Badge tone="accent">{badge}</Badge>}
          </span>
          <span className="mt-0.5 block text-xs text-fg-muted">{description}</span>
        </span>
        <ChevronRight className="size-4 shrink-0 text-fg-subtle transition-transform group-hover:translate-x-0.5" aria-hidden />
      </button>
    </li>
  );
}
