"use client";

import { forwardRef, type InputHTMLAttributes } from "react";
import { cn } from "./cn";
import { useField } from "./field";

export const controlClasses = cn(
  "w-full rounded-md border border-border-strong bg-surface px-3 text-sm text-fg shadow-xs",
  "placeholder:text-fg-subtle transition-[border-color,box-shadow]",
  "focus-visible:border-accent focus-visible:outline-none focus-visible:ring-3 focus-visible:ring-ring/40",
  "disabled:cursor-not-allowed disabled:opacity-60",
  "aria-invalid:border-error aria-invalid:focus-visible:ring-error/25",
);

export const Input = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement>>(function Input(
  { className, id, ...props },
  ref,
) {
  const field = useField();
  return (
    <input
      ref={ref}
      id={id ?? field?.id}
      aria-invalid={field?.invalid || undefined}
      aria-describedby={field?.describedBy}
      className={cn(controlClasses, "h-9", className)}
      {...props}
    />
  );
});
