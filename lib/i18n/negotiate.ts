export const LOCALES = ["en", "ko", "pl"] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = "en";
export const LOCALE_COOKIE = "NEXT_LOCALE";

export function isLocale(v: unknown): v is Locale {
  return typeof v === "string" && (LOCALES as readonly string[]).includes(v);
}

/** The tag used for formatting: English is en-US. */
export function formattingLocale(l: Locale): string {
  return l === "en" ? "en-US" : l;
}

/** Accept-Language entries ordered by q (stable for equal q), without "*" and q=0. */
export function parseAcceptLanguage(header: string | null | undefined): string[] {
  if (!header) return [];
  return header
    .split(",")
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(";");
      let q = 1;
      for (const p of params) {
        const [k, v] = p.trim().split("=");
        if (k === "q") q = Number(v);
      }
      return { tag: tag.trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((e) => e.tag && e.tag !== "*" && e.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
    .map((e) => e.tag);
}

/**
 * The browser's preferred languages are matched exactly first, then by base
 * language; English is the default. "en-US" matches "en" exactly (it is our English).
 */
export function negotiateLocale(acceptLanguage: string | null | undefined, chosen?: string | null): Locale {
  if (isLocale(chosen)) return chosen;
  const prefs = parseAcceptLanguage(acceptLanguage);
  for (const tag of prefs) {
    if (isLocale(tag)) return tag;
    if (tag === "en-us") return "en";
  }
  for (const tag of prefs) {
    const base = tag.split("-")[0];
    if (isLocale(base)) return base;
  }
  return DEFAULT_LOCALE;
}
