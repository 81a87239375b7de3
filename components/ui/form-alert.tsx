import type { ReactNode } from "react";
import { cn } from "./cn";

/**
 * A line at the top of a form (or a step of one) that says why it did not go through, when the
 * reason belongs to no field (a refused sign-in, a failed key ceremony); `info` for a notice.
 */
export function FormAlert({
  children,
  tone = "error",
  testId,
  className,
}: {
  children: ReactNode;
  tone?: "error" | "info";
  testId?: string;
  className?: string;
}) {
  return (
    <p
      data-testid={testId}
      role={tone === "error" ? "alert" : "status"}
      className={cn(
        tone === "error"
          ? "rounded-md border border-error/30 bg-error-subtle px-3 py-2 text-sm font-medium text-error"
          : "rounded-md border border-info/30 bg-info-subtle px-3 py-2 text-sm text-fg",
        className,
      )}
    >
      {children}
    </p>
  );
}
