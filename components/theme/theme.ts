/**
 * Theme preference: "system" follows the operating system, "light"/"dark" are forced.
 * The preference lives in localStorage; the resolved theme is the `dark` class on <html>,
 * set before the first paint by THEME_SCRIPT (inlined in the root layout's <head>).
 */
export type ThemePreference = "system" | "light" | "dark";

import { DARK_QUERY, THEME_SCRIPT, THEME_STORAGE_KEY } from "@/lib/theme-script";

export { THEME_SCRIPT, THEME_STORAGE_KEY };

function isPreference(v: unknown): v is ThemePreference {
  return v === "system" || v === "light" || v === "dark";
}

export function readThemePreference(): ThemePreference {
  try {
    const v = localStorage.getItem(THEME_STORAGE_KEY);
    return isPreference(v) ? v : "system";
  } catch {
    return "system";
  }
}

export function applyTheme(pref: ThemePreference): void {
  const dark = pref === "dark" || (pref === "system" && matchMedia(DARK_QUERY).matches);
  document.documentElement.classList.toggle("dark", dark);
}

const listeners = new Set<() => void>();

export function setThemePreference(pref: ThemePreference): void {
  try {
    localStorage.setItem(THEME_STORAGE_KEY, pref);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
  applyTheme(pref);
  listeners.forEach((l) => l());
}

/** Subscribe to preference changes (this tab, other tabs) and to the system setting. */
export function subscribeTheme(onChange: () => void): () => void {
  const mql = matchMedia(DARK_QUERY);
  const onSystem = () => {
    if (readThemePreference() === "system") applyTheme("system");
    onChange();
  };
  const onStorage = (e: StorageEvent) => {
    if (e.key !== THEME_STORAGE_KEY) return;
    applyTheme(readThemePreference());
    onChange();
  };
  listeners.add(onChange);
  mql.addEventListener("change", onSystem);
  window.addEventListener("storage", onStorage);
  return () => {
    listeners.delete(onChange);
    mql.removeEventListener("change", onSystem);
    window.removeEventListener("storage", onStorage);
  };
}
