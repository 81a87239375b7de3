"use client";

import { useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { ChevronDown, X } from "lucide-react";
import { cn } from "./cn";
import { OptionPanel, usePicker, type ListOption } from "./option-list";
import { Popover, PopoverAnchor, PopoverTrigger } from "./popover";

export type MultiSelectOption = ListOption;

export interface MultiSelectLabels {
  /** Placeholder of the search box inside the list. */
  search: string;
  /** Shown when no option matches the search. */
  empty: string;
  /** Accessible name of a chip's remove button. */
  remove: (label: string) => string;
  /** "+12 more" when not every chip is shown. */
  more: (count: number) => string;
  /** Collapses the chips again after "more". */
  less: string;
  /** Removes every selected value. */
  clear: string;
}

interface MultiSelectProps {
  value: string[];
  onChange: (value: string[]) => void;
  options: MultiSelectOption[];
  labels: MultiSelectLabels;
  /** Text of the control while nothing is selected. */
  placeholder?: string;
  /**
   * With this, the caller filters (e.g. a server search) and `options` are its results;
   * without it the options are filtered here by label, description and value.
   */
  onSearchChange?: (query: string) => void;
  /** The caller's search is running. */
  loading?: boolean;
  /** Chips shown before "+N more" (large selections stay light). */
  maxChips?: number;
  /** Label of a selected value that is not among the current options. */
  getLabel?: (value: string) => string;
  /** What a chip shows (default: the option's label), e.g. the login rather than the full name. */
  chipLabel?: (value: string) => string;
  renderOption?: (option: MultiSelectOption) => ReactNode;
  id?: string;
  disabled?: boolean;
  className?: string;
  "aria-label"?: string;
  "data-testid"?: string;
}

/** Several values from a list, shown as removable chips; the list has a search box and works by keyboard. */
export function MultiSelect({
  value,
  onChange,
  options,
  labels,
  placeholder,
  onSearchChange,
  loading,
  maxChips = 12,
  getLabel,
  chipLabel,
  renderOption,
  id,
  disabled,
  className,
  "aria-label": ariaLabel,
  "data-testid": testId,
}: MultiSelectProps) {
  const { field, open, setOpen, list } = usePicker(options, onSearchChange, loading);
  const [expanded, setExpanded] = useState(false);

  // Labels of values seen in earlier (server) results, so chips keep their names.
  const seen = useRef(new Map<string, string>());
  for (const o of options) seen.current.set(o.value, o.label);
  const labelOf = (v: string) => chipLabel?.(v) ?? seen.current.get(v) ?? getLabel?.(v) ?? v;
  const selected = useMemo(() => new Set(value), [value]);

  function toggle(v: string) {
    onChange(selected.has(v) ? value.filter((x) => x !== v) : [...value, v]);
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (list.navigate(e, (o) => toggle(o.value))) return;
    if (e.key === "Backspace" && !list.query && value.length) onChange(value.slice(0, -1));
  }

  const shown = expanded ? value : value.slice(0, maxChips);
  const hidden = value.length - shown.length;

  return (
    <Popover
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) list.search("");
      }}
    >
      <PopoverAnchor asChild>
        <div
          data-testid={testId}
          className={cn(
            "flex min-h-9 w-full flex-wrap items-center gap-1 rounded-md border border-border-strong bg-surface py-1 pl-1 pr-1 shadow-xs",
            "focus-within:border-accent focus-within:ring-3 focus-within:ring-ring/40",
            field?.invalid && "border-error",
            disabled && "cursor-not-allowed opacity-60",
            className,
          )}
        >
          {shown.map((v) => (
            <span
              key={v}
              data-testid="multi-select-chip"
              className="inline-flex h-6 max-w-full items-center gap-1 rounded-sm bg-subtle pl-2 pr-0.5 text-xs font-medium text-fg ring-1 ring-inset ring-border"
            >
              <span className="truncate">{labelOf(v)}</span>
              <button
                type="button"
                disabled={disabled}
                aria-label={labels.remove(labelOf(v))}
                onClick={() => onChange(value.filter((x) => x !== v))}
                className="rounded-sm p-0.5 text-fg-subtle hover:bg-hover hover:text-fg focus-visible:outline-2"
              >
                <X className="size-3" aria-hidden />
              </button>
            </span>
          ))}
          {(hidden > 0 || expanded) && value.length > maxChips && (
            <button
              type="button"
              onClick={() => setExpanded((x) => !x)}
              className="h-6 rounded-sm px-1.5 text-xs font-medium text-accent hover:bg-hover focus-visible:outline-2"
            >
              {expanded ? labels.less : labels.more(hidden)}
            </button>
          )}
          <PopoverTrigger
            id={id ?? field?.id}
            disabled={disabled}
            aria-label={ariaLabel}
            aria-describedby={field?.describedBy}
            aria-invalid={field?.invalid || undefined}
            className={cn(
              "flex h-7 flex-1 items-center justify-between gap-2 rounded-sm px-2 text-left text-sm text-fg-subtle",
              "focus-visible:outline-none disabled:cursor-not-allowed",
              // With chips the trigger shrinks to its chevron instead of wrapping onto a line of its own.
              value.length ? "min-w-7 justify-end px-1" : "min-w-24",
            )}
          >
            <span className="truncate">{value.length === 0 ? placeholder : ""}</span>
            <ChevronDown className="size-4 shrink-0 text-fg-muted" aria-hidden />
          </PopoverTrigger>
          {value.length > 1 && !disabled && (
            <button
              type="button"
              aria-label={labels.clear}
              onClick={() => onChange([])}
              className="rounded-sm p-1 text-fg-subtle hover:bg-hover hover:text-fg focus-visible:outline-2"
            >
              <X className="size-3.5" aria-hidden />
            </button>
          )}
        </div>
      </PopoverAnchor>
      <OptionPanel
        list={list}
        labels={labels}
        loading={loading}
        aria-label={ariaLabel}
        multiple
        isSelected={(o) => selected.has(o.value)}
        onPick={(o) => toggle(o.value)}
        onKeyDown={onKeyDown}
        renderOption={renderOption}
      />
    </Popover>
  );
}
