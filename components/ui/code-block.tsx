"use client";

import { useEffect, useState } from "react";
import { Check, Copy, Download } from "lucide-react";
import { Button } from "./button";
import { cn } from "./cn";
import { downloadText } from "./download";

export interface CodeBlockLabels {
  copy: string;
  copied: string;
  download: string;
  /** Why copying is not possible here (the page is not a secure context: http, not https). */
  insecure: string;
  /** The clipboard refused (permissions). */
  failed: string;
}

interface CodeBlockProps {
  code: string;
  labels: CodeBlockLabels;
  /** Shown in the header and used by the download button; without it there is no download. */
  filename?: string;
  /** Accessible name of the code region (e.g. "WireGuard configuration"). */
  label?: string;
  /** Wrap long lines (commands, tokens) instead of scrolling sideways. */
  wrap?: boolean;
  className?: string;
  "data-testid"?: string;
}

/** Monospace text (configs, keys) with copy and, given a file name, a download of exactly that text. */
export function CodeBlock({ code, labels, filename, label, wrap, className, "data-testid": testId }: CodeBlockProps) {
  const [state, setState] = useState<"idle" | "copied" | "insecure" | "failed">("idle");

  useEffect(() => {
    if (state !== "copied") return;
    const t = setTimeout(() => setState("idle"), 2000);
    return () => clearTimeout(t);
  }, [state]);

  async function copy() {
    if (!window.isSecureContext || !navigator.clipboard) return setState("insecure");
    try {
      await navigator.clipboard.writeText(code);
      setState("copied");
    } catch {
      setState("failed");
    }
  }

  const note = state === "insecure" ? labels.insecure : state === "failed" ? labels.failed : null;
  return (
    <div data-testid={testId} className={cn("flex min-w-0 flex-col overflow-hidden rounded-lg border border-border bg-subtle", className)}>
      <div className="flex flex-wrap items-center justify-between gap-x-2 gap-y-1 border-b border-border bg-surface px-3 py-1.5">
        <span className="min-w-0 flex-1 basis-40 truncate font-mono text-xs text-fg-muted" title={filename ?? label}>
          {filename ?? label}
        </span>
        <div className="-mr-1.5 flex shrink-0 items-center gap-1">
          <Button variant="ghost" size="sm" onClick={copy} aria-live="polite" data-testid="code-copy">
            {state === "copied" ? <Check aria-hidden className="text-success" /> : <Copy aria-hidden />}
            {state === "copied" ? labels.copied : labels.copy}
          </Button>
          {filename && (
            <Button variant="ghost" size="sm" onClick={() => downloadText(filename, code)} data-testid="code-download">
              <Download aria-hidden />
              {labels.download}
            </Button>
          )}
        </div>
      </div>
      <pre
        tabIndex={0}
        aria-label={label ?? filename}
        className={cn(
          "max-h-96 overflow-auto p-3 font-mono text-xs leading-5 text-fg focus-visible:outline-2 focus-visible:-outline-offset-2",
          wrap && "whitespace-pre-wrap break-all",
        )}
      >
        <code>{code}</code>
      </pre>
      {note && (
        <p role="status" className="border-t border-border px-3 py-1.5 text-xs text-warning">
          {note}
        </p>
      )}
    </div>
  );
}
