"use client";

import { useRef, type KeyboardEvent } from "react";
import { ChevronDown, X } from "lucide-react";
import { cn } from "./cn";
import { controlClasses } from "./input";
import { OptionPanel, usePicker, type ListOption } from "./option-list";
import { Popover, PopoverTrigger } from "./popover";

export type ComboboxOption = ListOption;

export interface ComboboxLabels {
  /** Placeholder of the search box inside the list. */
  search: string;
  /** Shown when no option matches the search. */
  empty: string;
  /** Accessible name of the button that clears the choice. */
  clear: string;
}

interface ComboboxProps {
  value: string | null;
  onChange: (value: string | null, option: ComboboxOption | null) => void;
  options: ComboboxOption[];
  labels: ComboboxLabels;
  placeholder?: string;
  /** With this, the caller filters (e.g. a server search) and `options` are its results. */
  onSearchChange?: (query: string) => void;
  loading?: boolean;
  /** Label of the chosen value when it is not among the current options. */
  selectedLabel?: string;
  id?: string;
  disabled?: boolean;
  invalid?: boolean;
  className?: string;
  "aria-label"?: string;
  "data-testid"?: string;
}

/** One value from a (searchable, possibly server-filtered) list; works by keyboard. */
export function Combobox({
  value,
  onChange,
  options,
  labels,
  placeholder,
  onSearchChange,
  loading,
  selectedLabel,
  id,
  disabled,
  invalid,
  className,
  "aria-label": ariaLabel,
  "data-testid": testId,
}: ComboboxProps) {
  const { field, open, setOpen, list } = usePicker(options, onSearchChange, loading);

  // Labels of values seen in earlier (server) results, so the trigger keeps the chosen name.
  const seen = useRef(new Map<string, string>());
  for (const o of options) seen.current.set(o.value, o.label);
  const shownLabel = value ? (seen.current.get(value) ?? selectedLabel ?? value) : null;

  function pick(o: ComboboxOption) {
    onChange(o.value, o);
    setOpen(false);
    list.search("");
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    list.navigate(e, pick);
  }

  const isInvalid = invalid ?? field?.invalid;
  return (
    <Popover
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) list.search("");
      }}
    >
      <div className={cn("relative", className)}>
        <PopoverTrigger
          id={id ?? field?.id}
          disabled={disabled}
          aria-label={ariaLabel}
          aria-describedby={field?.describedBy}
          aria-invalid={isInvalid || undefined}
          data-testid={testId}
          className={cn(
            controlClasses,
            "flex h-9 items-center justify-between gap-2 text-left",
            !shownLabel && "text-fg-subtle",
            value && !disabled && "pr-14",
          )}
        >
          <span className="truncate">{shownLabel ?? placeholder}</span>
          <ChevronDown className="size-4 shrink-0 text-fg-muted" aria-hidden />
        </PopoverTrigger>
        {value && !disabled && (
          <button
            type="button"
            aria-label={labels.clear}
            onClick={() => onChange(null, null)}
            className="absolute right-8 top-1/2 -translate-y-1/2 rounded-sm p-1 text-fg-subtle hover:bg-hover hover:text-fg focus-visible:outline-2"
          >
            <X className="size-3.5" aria-hidden />
          </button>
        )}
      </div>
      <OptionPanel
        list={list}
        labels={labels}
        loading={loading}
        aria-label={ariaLabel}
        isSelected={(o) => o.value === value}
        onPick={pick}
        onKeyDown={onKeyDown}
      />
    </Popover>
  );
}
