"use client";

import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { Check, ChevronDown, Search, X } from "lucide-react";
import { cn } from "./cn";
import { useField } from "./field";
import { Popover, PopoverAnchor, PopoverContent, PopoverTrigger } from "./popover";
import { Spinner } from "./spinner";

export interface MultiSelectOption {
  value: string;
  label: string;
  /** A second, quieter line (e.g. the login under a full name). */
  description?: string;
}

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

function matches(o: MultiSelectOption, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  return [o.label, o.description, o.value].some((s) => s?.toLowerCase().includes(needle));
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
  const field = useField();
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const [expanded, setExpanded] = useState(false);
  const listRef = useRef<HTMLUListElement>(null);

  // Labels of values seen in earlier (server) results, so chips keep their names.
  const seen = useRef(new Map<string, string>());
  for (const o of options) seen.current.set(o.value, o.label);
  const labelOf = (v: string) => chipLabel?.(v) ?? seen.current.get(v) ?? getLabel?.(v) ?? v;

  const visible = useMemo(() => (onSearchChange ? options : options.filter((o) => matches(o, query))), [options, query, onSearchChange]);
  const selected = useMemo(() => new Set(value), [value]);

  // Back to the first option whenever the list itself changes (not on every render).
  const listKey = visible.map((o) => o.value).join("\n");
  useEffect(() => setActive(0), [listKey]);
  useEffect(() => {
    listRef.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: "nearest" });
  }, [active]);

  function search(q: string) {
    setQuery(q);
    onSearchChange?.(q);
  }

  function toggle(v: string) {
    onChange(selected.has(v) ? value.filter((x) => x !== v) : [...value, v]);
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === "ArrowDown") {
      e.preventDefault();
      setActive((a) => Math.min(visible.length - 1, a + 1));
    } else if (e.key === "ArrowUp") {
      e.preventDefault();
      setActive((a) => Math.max(0, a - 1));
    } else if (e.key === "Enter") {
      e.preventDefault();
      const o = visible[active];
      if (o) toggle(o.value);
    } else if (e.key === "Backspace" && !query && value.length) {
      onChange(value.slice(0, -1));
    }
  }

  const shown = expanded ? value : value.slice(0, maxChips);
  const hidden = value.length - shown.length;
  const activeId = visible[active] ? `${listId}-${active}` : undefined;

  return (
    <Popover
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) search("");
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
      <PopoverContent
        align="start"
        className="w-[var(--radix-popover-trigger-width)] min-w-60 p-0"
        onOpenAutoFocus={(e) => {
          // Focus the search box rather than the first focusable element.
          e.preventDefault();
          (e.currentTarget as HTMLElement).querySelector("input")?.focus();
        }}
      >
        <div className="flex items-center gap-2 border-b border-border px-3">
          <Search className="size-4 shrink-0 text-fg-subtle" aria-hidden />
          <input
            role="combobox"
            aria-expanded
            aria-controls={listId}
            aria-activedescendant={activeId}
            aria-autocomplete="list"
            aria-label={labels.search}
            placeholder={labels.search}
            value={query}
            onChange={(e) => search(e.target.value)}
            onKeyDown={onKeyDown}
            className="h-9 w-full bg-transparent text-sm text-fg outline-none placeholder:text-fg-subtle"
          />
          {loading && <Spinner size={14} className="shrink-0 text-fg-subtle" />}
        </div>
        <ul
          ref={listRef}
          id={listId}
          role="listbox"
          aria-multiselectable
          aria-label={ariaLabel ?? labels.search}
          className="max-h-64 overflow-y-auto p-1"
        >
          {visible.map((o, i) => {
            const isSelected = selected.has(o.value);
            return (
              <li
                key={o.value}
                id={`${listId}-${i}`}
                data-index={i}
                role="option"
                aria-selected={isSelected}
                data-active={i === active || undefined}
                onMouseMove={() => setActive(i)}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => toggle(o.value)}
                className="flex min-h-8 cursor-default select-none items-center gap-2 rounded-md px-2 py-1 text-sm data-[active]:bg-hover"
              >
                <span
                  aria-hidden
                  className={cn(
                    "flex size-4 shrink-0 items-center justify-center rounded-sm border",
                    isSelected ? "border-accent bg-accent text-accent-fg" : "border-border-strong",
                  )}
                >
                  {isSelected && <Check className="size-3" strokeWidth={3} />}
                </span>
                {renderOption ? (
                  renderOption(o)
                ) : (
                  <span className="min-w-0 flex-1">
                    <span className="block truncate">{o.label}</span>
                    {o.description && <span className="block truncate text-xs text-fg-muted">{o.description}</span>}
                  </span>
                )}
              </li>
            );
          })}
          {visible.length === 0 && !loading && <li className="px-2 py-3 text-center text-sm text-fg-muted">{labels.empty}</li>}
        </ul>
      </PopoverContent>
    </Popover>
  );
}
