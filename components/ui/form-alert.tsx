import type { ReactNode } from "react";
import { cn } from "./cn";
import { formAlertClasses } from "./control-classes";

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
      className={cn(formAlertClasses[tone], className)}
    >
      {children}
    </p>
  );
}
