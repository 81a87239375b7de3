/** Small statistics helpers for the benchmark tables. */

export function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Nearest-rank percentile (p in 0..100) of the values. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = sorted(values);
  const rank = Math.ceil((p / 100) * s.length);
  return s[Math.min(s.length - 1, Math.max(0, rank - 1))];
}

export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = sorted(values);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

export function max(values: number[]): number {
  return values.length ? Math.max(...values) : NaN;
}

/** Milliseconds for a table cell: whole numbers from 100 ms up, one decimal below. */
export function ms(v: number): string {
  if (!Number.isFinite(v)) return "-";
  return v >= 100 ? String(Math.round(v)) : v.toFixed(1);
}
