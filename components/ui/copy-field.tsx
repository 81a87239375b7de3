"use client";

import { useEffect, useRef, useState } from "react";
import { Check, Copy } from "lucide-react";
import { Button } from "./button";
import { cn } from "./cn";
import { useField } from "./field";
import { controlClasses } from "./input";

export interface CopyFieldLabels {
  copy: string;
  copied: string;
  /** Why copying is not possible here (the page is not a secure context: http, not https). */
  insecure: string;
  /** The clipboard refused (permissions). */
  failed: string;
}

interface CopyFieldProps {
  value: string;
  labels: CopyFieldLabels;
  /** Monospace for keys, tokens and addresses. */
  mono?: boolean;
  id?: string;
  className?: string;
  "data-testid"?: string;
}

/** A read-only value with a copy button that says "copied", or why it cannot copy. */
export function CopyField({ value, labels, mono = true, id, className, "data-testid": testId }: CopyFieldProps) {
  const field = useField();
  const inputRef = useRef<HTMLInputElement>(null);
  const [state, setState] = useState<"idle" | "copied" | "insecure" | "failed">("idle");

  useEffect(() => {
    if (state !== "copied") return;
    const t = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(t);
  }, [state]);

  async function copy() {
    if (!window.isSecureContext || !navigator.clipboard) {
      // Select the text so the user can copy it by hand.
      inputRef.current?.select();
      setState("insecure");
      return;
    }
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
    } catch {
      inputRef.current?.select();
      setState("failed");
    }
  }

  const note = state === "insecure" ? labels.insecure : state === "failed" ? labels.failed : null;
  return (
    <div data-testid={testId} className={cn("flex flex-col gap-1.5", className)}>
      <div className="flex gap-2">
        <input
          ref={inputRef}
          id={id ?? field?.id}
          readOnly
          value={value}
          aria-describedby={field?.describedBy}
          onFocus={(e) => e.currentTarget.select()}
          className={cn(controlClasses, "h-9 bg-subtle", mono && "font-mono text-xs")}
        />
        <Button variant="secondary" onClick={copy} className="h-9" aria-live="polite">
          {state === "copied" ? <Check aria-hidden className="text-success" /> : <Copy aria-hidden />}
          {state === "copied" ? labels.copied : labels.copy}
        </Button>
      </div>
      {note && (
        <p role="status" className="text-xs text-warning">
          {note}
        </p>
      )}
    </div>
  );
}
