/** The page numbers to show: first, last, and a window around the current page, with gaps as null. */
export function pageWindow(page: number, pageCount: number, around = 1): (number | null)[] {
  const pages = new Set<number>([1, pageCount]);
  for (let p = page - around; p <= page + around; p++) if (p >= 1 && p <= pageCount) pages.add(p);
  // Avoid a gap that would hide a single page ("1 … 3" becomes "1 2 3").
  const sorted = [...pages].sort((a, b) => a - b);
  const out: (number | null)[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const prev = sorted[i - 1];
    if (prev !== undefined && sorted[i] - prev === 2) out.push(prev + 1);
    else if (prev !== undefined && sorted[i] - prev > 2) out.push(null);
    out.push(sorted[i]);
  }
  return out;
}
