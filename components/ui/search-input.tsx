"use client";

import type { InputHTMLAttributes } from "react";
import { Search, X } from "lucide-react";
import { cn } from "./cn";
import { Input } from "./input";

interface SearchInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange" | "type"> {
  value: string;
  onValueChange: (value: string) => void;
  /** Accessible name of the clear button. */
  clearLabel: string;
  /** Classes of the wrapper (width, margins). */
  className?: string;
}

/** A search field with a leading icon and a clear button while it holds text. */
export function SearchInput({ value, onValueChange, clearLabel, className, ...props }: SearchInputProps) {
  return (
    <div className={cn("relative min-w-0", className)}>
      <Search className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-fg-subtle" aria-hidden />
      <Input
        type="search"
        {...props}
        value={value}
        onChange={(e) => onValueChange(e.target.value)}
        className="pl-9 [&::-webkit-search-cancel-button]:hidden"
      />
      {value && (
        <button
          type="button"
          aria-label={clearLabel}
          onClick={() => onValueChange("")}
          className="absolute right-2 top-1/2 -translate-y-1/2 rounded-sm p-1 text-fg-subtle hover:bg-hover hover:text-fg focus-visible:outline-2"
        >
          <X className="size-3.5" aria-hidden />
        </button>
      )}
    </div>
  );
}
