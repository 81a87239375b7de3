"use client";

import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { Check, ChevronDown, Search, X } from "lucide-react";
import { cn } from "./cn";
import { useField } from "./field";
import { controlClasses } from "./input";
import { Popover, PopoverContent, PopoverTrigger } from "./popover";
import { Spinner } from "./spinner";

export interface ComboboxOption {
  value: string;
  label: string;
  /** A second, quieter line (e.g. the login under a full name). */
  description?: string;
}

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

function matches(o: ComboboxOption, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  return [o.label, o.description, o.value].some((s) => s?.toLowerCase().includes(needle));
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
  const field = useField();
  const listId = useId();
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);

  // Labels of values seen in earlier (server) results, so the trigger keeps the chosen name.
  const seen = useRef(new Map<string, string>());
  for (const o of options) seen.current.set(o.value, o.label);
  const shownLabel = value ? (seen.current.get(value) ?? selectedLabel ?? value) : null;

  const visible = useMemo(() => (onSearchChange ? options : options.filter((o) => matches(o, query))), [options, query, onSearchChange]);
  const listKey = visible.map((o) => o.value).join("\n");
  useEffect(() => setActive(0), [listKey]);
  useEffect(() => {
    listRef.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: "nearest" });
  }, [active]);

  function search(q: string) {
    setQuery(q);
    onSearchChange?.(q);
  }

  function pick(o: ComboboxOption) {
    onChange(o.value, o);
    setOpen(false);
    search("");
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
      if (o) pick(o);
    }
  }

  const isInvalid = invalid ?? field?.invalid;
  const activeId = visible[active] ? `${listId}-${active}` : undefined;
  return (
    <Popover
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) search("");
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
      <PopoverContent
        align="start"
        className="w-[var(--radix-popover-trigger-width)] min-w-60 p-0"
        onOpenAutoFocus={(e) => {
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
        <ul ref={listRef} id={listId} role="listbox" aria-label={ariaLabel ?? labels.search} className="max-h-64 overflow-y-auto p-1">
          {visible.map((o, i) => {
            const selected = o.value === value;
            return (
              <li
                key={o.value}
                id={`${listId}-${i}`}
                data-index={i}
                role="option"
                aria-selected={selected}
                data-active={i === active || undefined}
                onMouseMove={() => setActive(i)}
                onMouseDown={(e) => e.preventDefault()}
                onClick={() => pick(o)}
                className="flex min-h-8 cursor-default select-none items-center gap-2 rounded-md px-2 py-1 text-sm data-[active]:bg-hover"
              >
                <span className="min-w-0 flex-1">
                  <span className="block truncate">{o.label}</span>
                  {o.description && <span className="block truncate text-xs text-fg-muted">{o.description}</span>}
                </span>
                {selected && <Check className="size-4 shrink-0 text-accent" aria-hidden />}
              </li>
            );
          })}
          {visible.length === 0 && !loading && <li className="px-2 py-3 text-center text-sm text-fg-muted">{labels.empty}</li>}
        </ul>
      </PopoverContent>
    </Popover>
  );
}
