import type { HTMLAttributes } from "react";
import { cn } from "./cn";

/** A placeholder block with the size of the content it stands for (no layout shift). */
export function Skeleton({ className, ...props }: HTMLAttributes<HTMLDivElement>) {
  return <div aria-hidden className={cn("animate-pulse rounded-md bg-hover", className)} {...props} />;
}
