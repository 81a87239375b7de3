"use client";

import { useFormatter, useNow } from "next-intl";
import { cn } from "./cn";
import { Tooltip } from "./tooltip";

/** The browser's own time zone (the server formats in UTC). */
export function localTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

interface RelativeTimeProps {
  value: Date | string;
  className?: string;
}

/** "3 min ago", with the exact date and time (the user's language and time zone) on hover and focus. */
export function RelativeTime({ value, className }: RelativeTimeProps) {
  const format = useFormatter();
  // Refresh the relative text every 30 s.
  const now = useNow({ updateInterval: 30_000 });
  const date = typeof value === "string" ? new Date(value) : value;
  const exact = format.dateTime(date, { dateStyle: "medium", timeStyle: "medium", timeZone: localTimeZone() });
  const relative = format.relativeTime(date, now);
  return (
    <Tooltip content={exact}>
      <time
        dateTime={date.toISOString()}
        tabIndex={0}
        aria-label={`${relative} (${exact})`}
        className={cn("cursor-default whitespace-nowrap rounded-sm underline decoration-border-strong decoration-dotted underline-offset-4 focus-visible:outline-2", className)}
      >
        {relative}
      </time>
    </Tooltip>
  );
}
