/** Pure helpers of the date picker (no React), shared with its tests. */

/** Dates are written MM/dd/yyyy; times come in 30-minute steps. */
export const DATE_FORMAT = "MM/dd/yyyy";
export const pad = (n: number) => String(n).padStart(2, "0");

/** "MM/dd/yyyy", or "MM/dd/yyyy HH:mm" with the time (local time). */
export function formatDateInput(d: Date, withTime = false): string {
  const date = `${pad(d.getMonth() + 1)}/${pad(d.getDate())}/${d.getFullYear()}`;
  return withTime ? `${date} ${pad(d.getHours())}:${pad(d.getMinutes())}` : date;
}

/**
 * Reads "MM/dd/yyyy" (with an optional " HH:mm") as local time. Empty text gives undefined,
 * anything that is not a real calendar date gives null. `defaultTime` ("HH:mm") applies when
 * the text has no time.
 */
export function parseDateInput(text: string, defaultTime = "00:00"): Date | null | undefined {
  const s = text.trim();
  if (!s) return undefined;
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T]+(\d{1,2}):(\d{2}))?$/.exec(s);
  if (!m) return null;
  const [month, day, year] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const [dh, dm] = defaultTime.split(":").map(Number);
  const hour = m[4] !== undefined ? Number(m[4]) : dh;
  const minute = m[5] !== undefined ? Number(m[5]) : dm;
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || year < 1000) return null;
  const d = new Date(year, month - 1, day, hour, minute, 0, 0);
  // new Date rolls 02/31 over into March: such a date does not exist.
  if (d.getFullYear() !== year || d.getMonth() !== month - 1 || d.getDate() !== day) return null;
  return d;
}
