"use client";

import { forwardRef, type TextareaHTMLAttributes } from "react";
import { cn } from "./cn";
import { controlClasses } from "./input";
import { useField } from "./field";

/** Multi-line text input; picks up id, description and error state from its Field. */
export const Textarea = forwardRef<HTMLTextAreaElement, TextareaHTMLAttributes<HTMLTextAreaElement>>(function Textarea(
  { className, id, rows = 4, ...props },
  ref,
) {
  const field = useField();
  return (
    <textarea
      ref={ref}
      id={id ?? field?.id}
      rows={rows}
      aria-invalid={field?.invalid || undefined}
      aria-describedby={field?.describedBy}
      className={cn(controlClasses, "min-h-16 resize-y py-2 leading-5", className)}
      {...props}
    />
  );
});
