"use client";

import { useCallback } from "react";
import { usePathname, useSearchParams } from "next/navigation";

export type ParamPatch = Record<string, string | string[] | number | null | undefined>;

/**
 * List state kept in the address (search, filters, page) so a view can be shared (docs/ui.md).
 * Uses the History API directly: Next.js keeps useSearchParams in step without asking the
 * server for the page again on every keystroke.
 */
export function useUrlState() {
  const params = useSearchParams();
  const pathname = usePathname();

  const set = useCallback(
    (patch: ParamPatch) => {
      const next = new URLSearchParams(window.location.search);
      for (const [key, value] of Object.entries(patch)) {
        next.delete(key);
        if (value === null || value === undefined || value === "") continue;
        for (const v of Array.isArray(value) ? value : [value]) if (v !== "") next.append(key, String(v));
      }
      const qs = next.toString();
      window.history.replaceState(null, "", qs ? `${pathname}?${qs}` : pathname);
    },
    [pathname],
  );

  return { params, set };
}

export function intParam(raw: string | null, fallback = 1): number {
  const n = Number(raw);
  return Number.isInteger(n) && n >= 1 ? n : fallback;
}
