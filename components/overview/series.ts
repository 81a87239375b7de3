import { bucketSeconds as sharedBucketSeconds } from "@/lib/stats/buckets";
/**
 * Transfer series as the stats API sends them are sparse (points without traffic are
 * dropped). Charts need every bucket of the window: these helpers put the points back on the
 * server's bucket grid, with zeros where nothing moved.
 */

/** The server's bucket width for a window (one shared pure function, lib/stats/buckets.ts). */
export function bucketSeconds(fromMs: number, nowMs: number): number {
  return sharedBucketSeconds(new Date(fromMs), new Date(nowMs));
}

export interface TransferPoint {
  collected_at: string;
  upload: number;
  download: number;
}

export interface FilledSeries {
  /** Bucket starts in ms, ascending, covering the window. */
  xs: number[];
  upload: number[];
  download: number[];
}

/** Every bucket from `fromMs` to `nowMs` with the traffic of the points that fall into it. */
export function fillSeries(points: readonly TransferPoint[], fromMs: number, nowMs: number): FilledSeries {
  const step = bucketSeconds(fromMs, nowMs) * 1000;
  const start = Math.floor(fromMs / step) * step;
  const end = Math.floor(nowMs / step) * step;
  const xs: number[] = [];
  for (let x = start; x <= end; x += step) xs.push(x);
  const upload = xs.map(() => 0);
  const download = xs.map(() => 0);
  for (const p of points) {
    const t = Date.parse(p.collected_at);
    if (!Number.isFinite(t)) continue;
    const i = Math.floor((t - start) / step);
    if (i < 0 || i >= xs.length) continue;
    upload[i] += p.upload;
    download[i] += p.download;
  }
  // The bucket in progress has no traffic yet: leave it out rather than draw a drop to zero.
  const last = xs.length - 1;
  if (last > 0 && xs[last] + step > nowMs && upload[last] === 0 && download[last] === 0) {
    xs.pop();
    upload.pop();
    download.pop();
  }
  return { xs, upload, download };
}

/** The first `shown` devices of the entries in order, the last entry cut if needed (table paging). */
export function firstRows<T extends { devices: readonly unknown[] }>(entries: readonly T[], shown: number): T[] {
  const out: T[] = [];
  let left = shown;
  for (const e of entries) {
    if (left <= 0) break;
    out.push(e.devices.length <= left ? e : { ...e, devices: e.devices.slice(0, left) });
    left -= e.devices.length;
  }
  return out;
}
