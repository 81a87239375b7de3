"use client";

import { useCallback } from "react";
import { useFormatter } from "next-intl";

const UNITS = ["B", "KB", "MB", "GB", "TB", "PB"] as const;
const STEP = 1024;

/** The unit index for a byte count (0 = B, 1 = KB, ...). */
export function byteUnit(bytes: number): number {
  let i = 0;
  let v = Math.abs(bytes);
  while (v >= STEP && i < UNITS.length - 1) {
    v /= STEP;
    i++;
  }
  return i;
}

/** Sizes in B/KB/MB/GB (1024 steps; docs/ui.md) with the number in the user's language. */
export function useFormatBytes() {
  const format = useFormatter();
  return useCallback(
    (bytes: number) => {
      const i = byteUnit(bytes);
      const v = bytes / STEP ** i;
      return `${format.number(v, { maximumFractionDigits: i === 0 ? 0 : v < 10 ? 1 : 0 })} ${UNITS[i]}`;
    },
    [format],
  );
}

/** Y-axis ticks for byte values: 0 and round steps in the unit of the maximum (e.g. 0, 2 MB, 4 MB, 6 MB). */
export function byteTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1024];
  const unit = STEP ** byteUnit(max);
  const raw = max / unit / 3;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag) * unit;
  const ticks: number[] = [];
  for (let v = 0; v < max + step * 0.999; v += step) ticks.push(v);
  return ticks;
}
