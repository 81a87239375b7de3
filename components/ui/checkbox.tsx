"use client";

import { forwardRef, type ComponentPropsWithoutRef, type ElementRef } from "react";
import * as CheckboxPrimitive from "@radix-ui/react-checkbox";
import { Check, Minus } from "lucide-react";
import { cn } from "./cn";
import { useField } from "./field";

export const Checkbox = forwardRef<
  ElementRef<typeof CheckboxPrimitive.Root>,
  ComponentPropsWithoutRef<typeof CheckboxPrimitive.Root>
>(function Checkbox({ className, id, ...props }, ref) {
  const field = useField();
  return (
    <CheckboxPrimitive.Root
      ref={ref}
      id={id ?? field?.id}
      aria-describedby={field?.describedBy}
      className={cn(
        "group flex size-4 shrink-0 items-center justify-center rounded-sm border border-border-strong bg-surface text-accent-fg transition-colors",
        "focus-visible:outline-2 focus-visible:outline-offset-2 disabled:cursor-not-allowed disabled:opacity-50",
        "data-[state=checked]:border-accent data-[state=checked]:bg-accent data-[state=indeterminate]:border-accent data-[state=indeterminate]:bg-accent",
        className,
      )}
      {...props}
    >
      <CheckboxPrimitive.Indicator>
        <Check className="size-3 group-data-[state=indeterminate]:hidden" strokeWidth={3} aria-hidden />
        <Minus className="hidden size-3 group-data-[state=indeterminate]:block" strokeWidth={3} aria-hidden />
      </CheckboxPrimitive.Indicator>
    </CheckboxPrimitive.Root>
  );
});
