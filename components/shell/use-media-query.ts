"use client";

import { useCallback, useSyncExternalStore } from "react";

/** Whether a CSS media query matches; `false` while rendering on the server. */
export function useMediaQuery(query: string): boolean {
  const subscribe = useCallback(
    (onChange: () => void) => {
      const mql = matchMedia(query);
      mql.addEventListener("change", onChange);
      return () => mql.removeEventListener("change", onChange);
    },
    [query],
  );
  return useSyncExternalStore(
    subscribe,
    () => matchMedia(query).matches,
    () => false,
  );
}

/** Breakpoints: below 768 px the nav is a drawer, below 992 px a rail of icons. */
export function useLayoutMode(): "mobile" | "compact" | "full" {
  const tablet = useMediaQuery("(min-width: 768px)");
  const desktop = useMediaQuery("(min-width: 992px)");
  return desktop ? "full" : tablet ? "compact" : "mobile";
}
