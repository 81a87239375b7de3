"use client";

import { useTranslations } from "next-intl";
import { LayoutGrid, List } from "lucide-react";
import type { Location } from "@/components/locations/api";
import { cn } from "@/components/ui/cn";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { useUrlState } from "@/components/users/url-state";
import { useEssentials } from "@/components/settings/queries";
import { DEFAULT_HOURS, HOUR_OPTIONS } from "./queries";

export type OverviewView = "grid" | "list";

/**
 * The overview's view state, kept in the address so a view can be shared: `location` (a
 * location id; absent = all locations), `hours` (one of HOUR_OPTIONS) and `view` (grid/list).
 */
export function useOverviewParams(locations: readonly Location[] | undefined) {
  const { params, set } = useUrlState();
  const rawHours = Number(params.get("hours"));
  const hours = (HOUR_OPTIONS as readonly number[]).includes(rawHours) ? rawHours : DEFAULT_HOURS;
  const rawLocation = params.get("location");
  const wanted = rawLocation && /^\d{1,10}$/.test(rawLocation) ? Number(rawLocation) : null;
  // An unknown id (deleted location, hand-edited address) falls back to all locations.
  const locationId = wanted !== null && locations?.some((l) => l.id === wanted) ? wanted : null;
  // Without ?view= the administrators' default from Settings → Global (settings essentials).
  const fallback: OverviewView = useEssentials().data?.default_overview_view === "list" ? "list" : "grid";
  const rawView = params.get("view");
  const view: OverviewView = rawView === "list" || rawView === "grid" ? rawView : fallback;
  return {
    hours,
    locationId,
    /** The requested id before the locations are known (keeps the selector steady while loading). */
    requestedLocationId: wanted,
    view,
    setHours: (h: number) => set({ hours: h === DEFAULT_HOURS ? null : h }),
    setLocation: (id: number | null) => set({ location: id }),
    setView: (v: OverviewView) => set({ view: v === fallback ? null : v }),
  };
}

interface ControlsProps {
  locations: readonly Location[];
  locationId: number | null;
  hours: number;
  onLocation: (id: number | null) => void;
  onHours: (hours: number) => void;
}

/** Location selector ("All locations" or one) and time range, for the page header. */
export function OverviewControls({ locations, locationId, hours, onLocation, onHours }: ControlsProps) {
  const t = useTranslations("overview.controls");
  return (
    <div className="flex flex-wrap items-center gap-2">
      <Select value={locationId === null ? "all" : String(locationId)} onValueChange={(v) => onLocation(v === "all" ? null : Number(v))}>
        <SelectTrigger aria-label={t("location")} className="w-[11.5rem] sm:w-52" data-testid="overview-location">
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          <SelectItem value="all">{t("allLocations")}</SelectItem>
          {locations.map((l) => (
            <SelectItem key={l.id} value={String(l.id)}>
              {l.name}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
      <Select value={String(hours)} onValueChange={(v) => onHours(Number(v))}>
        <SelectTrigger aria-label={t("range")} className="w-40 sm:w-44" data-testid="overview-hours">
          <SelectValue />
        </SelectTrigger>
        <SelectContent>
          {HOUR_OPTIONS.map((h) => (
            <SelectItem key={h} value={String(h)}>
              {t("lastHours", { hours: h })}
            </SelectItem>
          ))}
        </SelectContent>
      </Select>
    </div>
  );
}

/** Grid (cards) or list (table) for the connected users. */
export function ViewToggle({ view, onChange }: { view: OverviewView; onChange: (v: OverviewView) => void }) {
  const t = useTranslations("overview.controls");
  const item = (v: OverviewView, Icon: typeof List, label: string) => (
    <button
      type="button"
      aria-pressed={view === v}
      aria-label={label}
      title={label}
      onClick={() => onChange(v)}
      data-testid={`overview-view-${v}`}
      className={cn(
        "flex size-7 items-center justify-center rounded-[5px] text-fg-muted transition-colors hover:text-fg focus-visible:outline-2",
        view === v && "bg-surface text-fg shadow-xs ring-1 ring-border",
      )}
    >
      <Icon className="size-4" aria-hidden />
    </button>
  );
  return (
    <div role="group" aria-label={t("view")} className="flex items-center gap-0.5 rounded-md bg-subtle p-0.5 ring-1 ring-inset ring-border">
      {item("grid", LayoutGrid, t("grid"))}
      {item("list", List, t("list"))}
    </div>
  );
}
