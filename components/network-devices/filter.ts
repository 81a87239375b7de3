import type { NetworkDevice } from "@/components/devices/api";

export const NETWORK_DEVICES_PAGE_SIZE = 50;

const byName = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/**
 * Devices whose name, location, addresses, adder or description contain the text (any case),
 * in natural name order ("edge-2" before "edge-10").
 */
export function filterNetworkDevices(devices: readonly NetworkDevice[], text: string): NetworkDevice[] {
  const q = text.trim().toLowerCase();
  const hits = q
    ? devices.filter((d) =>
        [d.name, d.location?.name ?? "", d.assigned_ips.join(" "), d.added_by ?? "", d.description ?? ""].some((v) => v.toLowerCase().includes(q)),
      )
    : [...devices];
  return hits.sort((a, b) => byName.compare(a.name, b.name) || a.id - b.id);
}

/** One page of a list (1-based page, clamped to the last page). */
export function pageOf<T>(items: readonly T[], page: number, size = NETWORK_DEVICES_PAGE_SIZE): { rows: T[]; page: number; pageCount: number } {
  const pageCount = Math.max(1, Math.ceil(items.length / size));
  const p = Math.min(Math.max(1, page), pageCount);
  return { rows: items.slice((p - 1) * size, p * size), page: p, pageCount };
}
