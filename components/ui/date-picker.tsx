"use client";

import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useLocale } from "next-intl";
import { CalendarDays, ChevronLeft, ChevronRight, X } from "lucide-react";
import { Button } from "./button";
import { cn } from "./cn";
import { useField } from "./field";
import { controlClasses } from "./input";
import { DATE_FORMAT, formatDateInput, pad, parseDateInput } from "./date-input";
import { Popover, PopoverAnchor, PopoverContent, PopoverTrigger } from "./popover";

export { DATE_FORMAT, formatDateInput, parseDateInput };

const TIME_STEP_MINUTES = 30;

const sameDay = (a: Date, b: Date) =>
  a.getFullYear() === b.getFullYear() && a.getMonth() === b.getMonth() && a.getDate() === b.getDate();

function addDays(d: Date, n: number): Date {
  const out = new Date(d);
  out.setDate(out.getDate() + n);
  return out;
}

function startOfMonth(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), 1);
}

/** First day of the week for a locale (0 = Sunday): Intl where it knows, else Monday outside English. */
function weekStart(locale: string): number {
  try {
    const info = (new Intl.Locale(locale) as Intl.Locale & { getWeekInfo?: () => { firstDay: number } }).getWeekInfo?.();
    if (info) return info.firstDay % 7;
  } catch {
    // Older engines: fall through.
  }
  return locale.startsWith("en") || locale.startsWith("ko") ? 0 : 1;
}

/** The 42 days (6 weeks) of the grid showing `month`. */
function gridDays(month: Date, firstDay: number): Date[] {
  const first = startOfMonth(month);
  const offset = (first.getDay() - firstDay + 7) % 7;
  const start = addDays(first, -offset);
  return Array.from({ length: 42 }, (_, i) => addDays(start, i));
}

function timeSlots(extra?: string): string[] {
  const slots: string[] = [];
  for (let m = 0; m < 24 * 60; m += TIME_STEP_MINUTES) slots.push(`${pad(Math.floor(m / 60))}:${pad(m % 60)}`);
  if (extra && !slots.includes(extra)) slots.push(extra);
  return slots.sort();
}

export interface DatePickerLabels {
  /** The calendar button. */
  open: string;
  previousMonth: string;
  nextMonth: string;
  /** Heading of the time list. */
  time: string;
  /** Empties the field. */
  clear: string;
}

interface DatePickerProps {
  value: Date | undefined;
  onChange: (value: Date | undefined) => void;
  labels: DatePickerLabels;
  /** Adds a time (30-minute steps) to the date. */
  withTime?: boolean;
  /** "HH:mm" used when a day is picked or typed without a time, e.g. "23:59" for an inclusive end. */
  defaultTime?: string;
  /** Told whether the typed text is a real date, so the caller can show "date input not valid". */
  onValidityChange?: (valid: boolean) => void;
  id?: string;
  disabled?: boolean;
  className?: string;
  "aria-label"?: string;
  "data-testid"?: string;
}

/** A typed MM/dd/yyyy date (optionally with time) with a calendar popover. */
export function DatePicker({
  value,
  onChange,
  labels,
  withTime = false,
  defaultTime = "00:00",
  onValidityChange,
  id,
  disabled,
  className,
  "aria-label": ariaLabel,
  "data-testid": testId,
}: DatePickerProps) {
  const field = useField();
  const locale = useLocale();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState(value ? formatDateInput(value, withTime) : "");
  const [invalid, setInvalid] = useState(false);
  const [month, setMonth] = useState(() => startOfMonth(value ?? new Date()));
  const [focusDay, setFocusDay] = useState<Date>(() => value ?? new Date());
  const gridRef = useRef<HTMLDivElement>(null);

  const valueKey = value?.getTime();
  useEffect(() => {
    setText(value ? formatDateInput(value, withTime) : "");
    setInvalid(false);
    onValidityChange?.(true);
    if (value) {
      setMonth(startOfMonth(value));
      setFocusDay(value);
    }
    // Only when the value itself changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [valueKey, withTime]);

  const firstDay = weekStart(locale);
  const days = useMemo(() => gridDays(month, firstDay), [month, firstDay]);
  const weekdays = useMemo(() => {
    const f = new Intl.DateTimeFormat(locale, { weekday: "short" });
    return days.slice(0, 7).map((d) => f.format(d));
  }, [days, locale]);
  const monthTitle = new Intl.DateTimeFormat(locale, { month: "long", year: "numeric" }).format(month);
  const dayLabel = new Intl.DateTimeFormat(locale, { dateStyle: "full" });
  const today = new Date();

  const time = value ? `${pad(value.getHours())}:${pad(value.getMinutes())}` : defaultTime;

  function commitText() {
    const parsed = parseDateInput(text, withTime ? time : defaultTime);
    if (parsed === null) {
      setInvalid(true);
      onValidityChange?.(false);
      return;
    }
    setInvalid(false);
    onValidityChange?.(true);
    if (parsed?.getTime() !== value?.getTime()) onChange(parsed);
    else setText(parsed ? formatDateInput(parsed, withTime) : "");
  }

  function pickDay(day: Date) {
    const [h, m] = time.split(":").map(Number);
    onChange(new Date(day.getFullYear(), day.getMonth(), day.getDate(), h, m));
    if (!withTime) setOpen(false);
  }

  function pickTime(slot: string) {
    const [h, m] = slot.split(":").map(Number);
    const base = value ?? focusDay;
    onChange(new Date(base.getFullYear(), base.getMonth(), base.getDate(), h, m));
    setOpen(false);
  }

  function moveFocus(next: Date) {
    setFocusDay(next);
    if (next.getMonth() !== month.getMonth() || next.getFullYear() !== month.getFullYear()) setMonth(startOfMonth(next));
    requestAnimationFrame(() => gridRef.current?.querySelector<HTMLButtonElement>('[data-focus="true"]')?.focus());
  }

  function onGridKey(e: KeyboardEvent) {
    const step: Record<string, number> = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7 };
    if (e.key in step) {
      e.preventDefault();
      moveFocus(addDays(focusDay, step[e.key]));
    } else if (e.key === "PageUp" || e.key === "PageDown") {
      e.preventDefault();
      const d = new Date(focusDay);
      d.setMonth(d.getMonth() + (e.key === "PageUp" ? -1 : 1));
      moveFocus(d);
    }
  }

  const isInvalid = invalid || field?.invalid;

  return (
    <Popover open={open} onOpenChange={setOpen}>
      <PopoverAnchor asChild>
        <div data-testid={testId} className={cn("relative flex w-full items-center", className)}>
          <input
            id={id ?? field?.id}
            type="text"
            inputMode="numeric"
            autoComplete="off"
            placeholder={withTime ? `${DATE_FORMAT} HH:mm` : DATE_FORMAT}
            aria-label={ariaLabel}
            aria-invalid={isInvalid || undefined}
            aria-describedby={field?.describedBy}
            disabled={disabled}
            value={text}
            onChange={(e) => setText(e.target.value)}
            onBlur={commitText}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                commitText();
              }
            }}
            className={cn(controlClasses, "h-9 pr-16 tabular-nums")}
          />
          <div className="absolute right-1 flex items-center">
            {text && !disabled && (
              <button
                type="button"
                aria-label={labels.clear}
                onClick={() => {
                  setText("");
                  setInvalid(false);
                  onValidityChange?.(true);
                  onChange(undefined);
                }}
                className="rounded-sm p-1.5 text-fg-subtle hover:bg-hover hover:text-fg focus-visible:outline-2"
              >
                <X className="size-3.5" aria-hidden />
              </button>
            )}
            <PopoverTrigger
              disabled={disabled}
              aria-label={labels.open}
              className="rounded-sm p-1.5 text-fg-muted hover:bg-hover hover:text-fg focus-visible:outline-2"
            >
              <CalendarDays className="size-4" aria-hidden />
            </PopoverTrigger>
          </div>
        </div>
      </PopoverAnchor>
      <PopoverContent
        align="end"
        className="w-auto p-3"
        onOpenAutoFocus={(e) => {
          e.preventDefault();
          requestAnimationFrame(() => gridRef.current?.querySelector<HTMLButtonElement>('[data-focus="true"]')?.focus());
        }}
      >
        <div className="flex gap-3">
          <div>
            <div className="mb-2 flex items-center justify-between gap-2">
              <Button
                variant="ghost"
                size="icon"
                aria-label={labels.previousMonth}
                onClick={() => setMonth((m) => new Date(m.getFullYear(), m.getMonth() - 1, 1))}
              >
                <ChevronLeft aria-hidden />
              </Button>
              <p className="text-sm font-medium capitalize" aria-live="polite">
                {monthTitle}
              </p>
              <Button
                variant="ghost"
                size="icon"
                aria-label={labels.nextMonth}
                onClick={() => setMonth((m) => new Date(m.getFullYear(), m.getMonth() + 1, 1))}
              >
                <ChevronRight aria-hidden />
              </Button>
            </div>
            <div ref={gridRef} role="grid" aria-label={monthTitle} onKeyDown={onGridKey} className="grid grid-cols-7 gap-0.5">
              {weekdays.map((w, i) => (
                <div key={i} role="columnheader" className="flex h-7 items-center justify-center text-xs text-fg-subtle">
                  {w}
                </div>
              ))}
              {days.map((d) => {
                const outside = d.getMonth() !== month.getMonth();
                const selected = value !== undefined && sameDay(d, value);
                const focus = sameDay(d, focusDay);
                return (
                  <button
                    key={d.toISOString()}
                    type="button"
                    role="gridcell"
                    tabIndex={focus ? 0 : -1}
                    data-focus={focus}
                    aria-selected={selected}
                    aria-label={dayLabel.format(d)}
                    onClick={() => {
                      setFocusDay(d);
                      pickDay(d);
                    }}
                    className={cn(
                      "flex size-8 items-center justify-center rounded-md text-sm tabular-nums transition-colors focus-visible:outline-2",
                      outside ? "text-fg-subtle" : "text-fg",
                      selected ? "bg-accent font-medium text-accent-fg" : "hover:bg-hover",
                      !selected && sameDay(d, today) && "ring-1 ring-inset ring-accent",
                    )}
                  >
                    {d.getDate()}
                  </button>
                );
              })}
            </div>
          </div>
          {withTime && (
            <div className="flex w-20 flex-col border-l border-border pl-3">
              <p className="mb-2 flex h-8 items-center text-xs font-medium text-fg-muted">{labels.time}</p>
              <ul
                ref={(list) => {
                  // Scroll the list (not the page) so the current time is in view.
                  const el = list?.querySelector<HTMLElement>("[data-current]");
                  if (list && el) list.scrollTop = el.offsetTop - list.clientHeight / 2;
                }}
                role="listbox"
                aria-label={labels.time}
                className="relative h-[232px] overflow-y-auto pr-1"
              >
                {timeSlots(time).map((slot) => (
                  <li key={slot} role="presentation">
                    <button
                      type="button"
                      role="option"
                      aria-selected={slot === time && value !== undefined}
                      data-current={slot === time || undefined}
                      onClick={() => pickTime(slot)}
                      className={cn(
                        "h-7 w-full rounded-md px-2 text-left text-sm tabular-nums focus-visible:outline-2",
                        slot === time && value !== undefined ? "bg-accent text-accent-fg" : "hover:bg-hover",
                      )}
                    >
                      {slot}
                    </button>
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      </PopoverContent>
    </Popover>
  );
}
