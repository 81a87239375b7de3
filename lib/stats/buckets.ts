/** Bucket width for a statistics window: at most ~120 points, never below one minute. Pure: the
    browser's charts use it too. */
export function bucketSeconds(from: Date, now = new Date()): number {
  const span = Math.max(60, (now.getTime() - from.getTime()) / 1000);
  const raw = Math.ceil(span / 120);
  for (const step of [60, 300, 600, 1800, 3600, 10800, 21600, 43200, 86400]) if (raw <= step) return step;
  return 86400;
}
