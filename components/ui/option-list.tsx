"use client";

import { useEffect, useId, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { Check, Search } from "lucide-react";
import { cn } from "./cn";
import { PopoverContent } from "./popover";
import { Spinner } from "./spinner";
import { useField } from "./field";

/** One entry of a searchable list (Combobox, MultiSelect). */
export interface ListOption {
  value: string;
  label: string;
  /** A second, quieter line (e.g. the login under a full name). */
  description?: string;
}

function matches(o: ListOption, q: string): boolean {
  const needle = q.trim().toLowerCase();
  if (!needle) return true;
  return [o.label, o.description, o.value].some((s) => s?.toLowerCase().includes(needle));
}

/**
 * State of a searchable option list: the query, the visible options (filtered here by label,
 * description and value unless the caller searches itself via onSearchChange), and the active
 * option for the keyboard, kept in view. While `busy` (the caller's search for the current
 * query has not answered yet) Enter picks nothing: the options on screen belong to the
 * previous query, and a quick "type, Enter" would pick one of those.
 */
export function useOptionList<T extends ListOption>(options: T[], onSearchChange?: (query: string) => void, busy = false) {
  const listId = useId();
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);

  const visible = useMemo(() => (onSearchChange ? options : options.filter((o) => matches(o, query))), [options, query, onSearchChange]);
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

  /** Arrow keys move the active option, Enter picks it; other keys are left to the caller. */
  function navigate(e: KeyboardEvent<HTMLInputElement>, pick: (o: T) => void): boolean {
    if (e.key === "ArrowDown") setActive((a) => Math.min(visible.length - 1, a + 1));
    else if (e.key === "ArrowUp") setActive((a) => Math.max(0, a - 1));
    else if (e.key === "Enter") {
      const o = visible[active];
      if (o && !busy) pick(o);
    } else return false;
    e.preventDefault();
    return true;
  }

  return { listId, listRef, query, search, visible, active, setActive, navigate };
}

export type OptionList<T extends ListOption> = ReturnType<typeof useOptionList<T>>;

interface OptionPanelProps<T extends ListOption> {
  list: OptionList<T>;
  labels: { search: string; empty: string };
  loading?: boolean;
  "aria-label"?: string;
  /** Several values (a checkbox before each option) or one (a check mark after the chosen one). */
  multiple?: boolean;
  isSelected: (o: T) => boolean;
  onPick: (o: T) => void;
  onKeyDown: (e: KeyboardEvent<HTMLInputElement>) => void;
  renderOption?: (o: T) => ReactNode;
}

/** The popover of a Combobox or MultiSelect: a search box and the options, by mouse or keyboard. */
export function OptionPanel<T extends ListOption>({
  list,
  labels,
  loading,
  "aria-label": ariaLabel,
  multiple,
  isSelected,
  onPick,
  onKeyDown,
  renderOption,
}: OptionPanelProps<T>) {
  const { listId, listRef, query, search, visible, active, setActive } = list;
  return (
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
          aria-activedescendant={visible[active] ? `${listId}-${active}` : undefined}
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
        aria-multiselectable={multiple || undefined}
        aria-label={ariaLabel ?? labels.search}
        className="max-h-64 overflow-y-auto p-1"
      >
        {visible.map((o, i) => {
          const selected = isSelected(o);
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
              onClick={() => onPick(o)}
              className="flex min-h-8 cursor-default select-none items-center gap-2 rounded-md px-2 py-1 text-sm data-[active]:bg-hover"
            >
              {multiple && (
                <span
                  aria-hidden
                  className={cn(
                    "flex size-4 shrink-0 items-center justify-center rounded-sm border",
                    selected ? "border-accent bg-accent text-accent-fg" : "border-border-strong",
                  )}
                >
                  {selected && <Check className="size-3" strokeWidth={3} />}
                </span>
              )}
              {renderOption ? (
                renderOption(o)
              ) : (
                <span className="min-w-0 flex-1">
                  <span className="block truncate">{o.label}</span>
                  {o.description && <span className="block truncate text-xs text-fg-muted">{o.description}</span>}
                </span>
              )}
              {!multiple && selected && <Check className="size-4 shrink-0 text-accent" aria-hidden />}
            </li>
          );
        })}
        {visible.length === 0 && !loading && <li className="px-2 py-3 text-center text-sm text-fg-muted">{labels.empty}</li>}
      </ul>
    </PopoverContent>
  );
}

/** What a picker (single or multiple) keeps: its field's wiring, whether its panel is open, its option list. */
export function usePicker<T extends ListOption>(options: T[], onSearchChange?: (query: string) => void, busy = false) {
  const field = useField();
  const [open, setOpen] = useState(false);
  const list = useOptionList(options, onSearchChange, busy);
  return { field, open, setOpen, list };
}
