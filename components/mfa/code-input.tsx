"use client";

import { forwardRef, type InputHTMLAttributes } from "react";
import { Input } from "@/components/ui/input";
import { cn } from "@/components/ui/cn";

export const CODE_LENGTH = 6;

interface CodeInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "onChange" | "value" | "type"> {
  value: string;
  onChange: (value: string) => void;
  /** Called once the sixth digit is typed or pasted (auto-submit). */
  onComplete?: (code: string) => void;
}

/**
 * A 6-digit one-time code: numeric keypad on phones, the browser's one-time-code autofill,
 * spaces and other characters dropped from pasted text.
 */
export const CodeInput = forwardRef<HTMLInputElement, CodeInputProps>(function CodeInput(
  { value, onChange, onComplete, className, ...props },
  ref,
) {
  return (
    <Input
      ref={ref}
      type="text"
      inputMode="numeric"
      autoComplete="one-time-code"
      pattern="[0-9]*"
      maxLength={CODE_LENGTH + 6}
      spellCheck={false}
      placeholder="······"
      className={cn(
        "h-12 text-center font-mono text-2xl tracking-[0.4em] placeholder:tracking-[0.4em] placeholder:text-fg-subtle/50",
        className,
      )}
      value={value}
      onChange={(e) => {
        const digits = e.target.value.replace(/\D/g, "").slice(0, CODE_LENGTH);
        onChange(digits);
        if (digits.length === CODE_LENGTH && digits !== value) onComplete?.(digits);
      }}
      {...props}
    />
  );
});
