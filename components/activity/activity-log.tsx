"use client";

import { useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import { Activity, FilterX, ListFilter, SearchX } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { DatePicker } from "@/components/ui/date-picker";
import { Field } from "@/components/ui/field";
import { MultiSelect, type MultiSelectLabels, type MultiSelectOption } from "@/components/ui/multi-select";
import { PageHeader } from "@/components/ui/page-header";
import { RelativeTime } from "@/components/ui/relative-time";
import { SearchInput } from "@/components/ui/search-input";
import { ServerPagingFooter, usePageBounds, useSearchText } from "@/components/ui/server-paging";
import { useDatePickerLabels, useMultiSelectLabels, usePagerLabels } from "@/components/users/labels";
import { intParam, useUrlState, type ParamPatch } from "@/components/users/url-state";
import { ACTIVITY_PAGE_SIZE, useActivity, useActivityFilters, type ActivityEvent } from "./queries";

const WIDE = "hidden lg:table-cell";
const SMALL = "hidden sm:table-cell";
const MEDIUM = "hidden md:table-cell";
// Filter widths: the pickers stay compact, the dates fit "MM/dd/yyyy HH:mm".
const FILTER = "gap-1 [&>label]:text-xs [&>label]:text-fg-muted";
const PICKER = `${FILTER} sm:min-w-40 sm:flex-1`;
const DATE = `${FILTER} sm:w-52`;

/** Translated name of an event or module, or the raw value made readable. */
function useLabels() {
  const t = useTranslations("activity");
  return useMemo(() => {
    const humanize = (v: string) => v.replace(/[_-]+/g, " ").replace(/^\w/, (c) => c.toUpperCase());
    return {
      event: (e: string) => (t.has(`events.${e}` as never) ? t(`events.${e}` as never) : humanize(e)),
      module: (m: string) => (t.has(`modules.${m}` as never) ? t(`modules.${m}` as never) : humanize(m)),
    };
  }, [t]);
}

function eventTone(event: string): "neutral" | "success" | "warning" | "error" | "info" | "accent" {
  if (/failed|removed|disabled/.test(event)) return event.endsWith("failed") ? "error" : "warning";
  if (/added|enabled|login$/.test(event)) return "success";
  if (/password|mfa|recovery/.test(event)) return "info";
  return "neutral";
}

const dash = <span className="text-fg-subtle">—</span>;

function useColumns(showUser: boolean): DataColumn<ActivityEvent>[] {
  const t = useTranslations("activity");
  const labels = useLabels();
  return useMemo(() => {
    const user: DataColumn<ActivityEvent>[] = showUser
      ? [{ header: t("columns.user"), className: MEDIUM, cellClassName: "max-w-40 truncate font-medium", skeleton: "w-20", cell: (e) => e.username }]
      : [];
    return [
      {
        header: t("columns.date"),
        cellClassName: "whitespace-nowrap align-top text-fg-muted sm:align-middle",
        skeleton: "w-20",
        cell: (e) => (
          <>
            <RelativeTime value={e.timestamp} />
            {/* Narrow screens: the user under the date (their own column from md). */}
            {showUser && <p className="mt-0.5 max-w-32 truncate text-xs font-medium text-fg md:hidden">{e.username}</p>}
          </>
        ),
      },
      ...user,
      { header: t("columns.ip"), className: WIDE, cellClassName: "whitespace-nowrap font-mono text-xs text-fg-muted", skeleton: "w-20", cell: (e) => e.ip ?? dash },
      { header: t("columns.location"), className: WIDE, cellClassName: "max-w-32 truncate", skeleton: "w-16", cell: (e) => e.location ?? dash },
      {
        header: t("columns.event"),
        cellClassName: "py-2 align-top sm:align-middle",
        skeleton: "w-24",
        cell: (e) => (
          <>
            <Badge tone={eventTone(e.event)} title={e.event} data-testid="activity-event">
              {labels.event(e.event)}
            </Badge>
            {/* Narrow screens: the description under the event (its own column from sm). */}
            {e.description && <p className="mt-1 line-clamp-2 break-words text-xs text-fg-muted sm:hidden">{e.description}</p>}
          </>
        ),
      },
      { header: t("columns.module"), className: MEDIUM, cellClassName: "whitespace-nowrap text-fg-muted", skeleton: "w-16", cell: (e) => labels.module(e.module) },
      { header: t("columns.device"), className: WIDE, cellClassName: "max-w-32 truncate", skeleton: "w-16", cell: (e) => e.device ?? dash },
      {
        header: t("columns.description"),
        className: SMALL,
        cellClassName: "min-w-48 text-fg-muted",
        skeleton: "w-48",
        cell: (e) => (
          <span className="line-clamp-2 break-words" title={e.description}>
            {e.description ?? dash}
          </span>
        ),
      },
    ];
  }, [t, labels, showUser]);
}

/** One multi-value filter of the log (its values come from the server; the address keeps the choice). */
function FilterPicker({
  param,
  label,
  value,
  values,
  getLabel,
  set,
  ...rest
}: {
  param: string;
  label: string;
  value: string[];
  values: string[] | undefined;
  getLabel?: (v: string) => string;
  set: (patch: ParamPatch) => void;
  loading: boolean;
  placeholder: string;
  labels: MultiSelectLabels;
}) {
  const name = getLabel ?? ((v: string) => v);
  const options: MultiSelectOption[] = (values ?? []).map((v) => ({ value: v, label: name(v), description: name(v) !== v ? v : undefined }));
  return (
    <Field label={label} className={PICKER}>
      <MultiSelect
        data-testid={`activity-filter-${param}`}
        value={value}
        onChange={(v) => set({ [param]: v, page: null })}
        options={options}
        getLabel={getLabel}
        maxChips={2}
        {...rest}
      />
    </Field>
  );
}

const toIso = (d: Date | undefined) => (d ? d.toISOString() : null);
const fromIso = (s: string | null) => {
  if (!s) return undefined;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? undefined : d;
};

/** Activity log: filters by user, event, module, location and dates, search, pages of 50. */
export function ActivityLog({ isAdmin }: { isAdmin: boolean }) {
  const t = useTranslations("activity");
  const tv = useTranslations("validation");
  const { params, set } = useUrlState();
  const labels = useLabels();
  const pickerLabels = useMultiSelectLabels("activity");
  const dateLabels = useDatePickerLabels();
  const pagerLabels = usePagerLabels("activity");
  const filters = useActivityFilters();
  const [showFilters, setShowFilters] = useState(false);
  const [invalidDate, setInvalidDate] = useState<{ from: boolean; until: boolean }>({ from: false, until: false });

  const q = params.get("q") ?? "";
  const usernames = params.getAll("user");
  const events = params.getAll("event");
  const modules = params.getAll("module");
  const locations = params.getAll("location");
  const from = fromIso(params.get("from"));
  const until = fromIso(params.get("until"));
  const page = intParam(params.get("page"));
  const rangeInvalid = from !== undefined && until !== undefined && from > until;

  const [text, setText] = useSearchText(q, set);

  const log = useActivity({
    search: q,
    usernames: isAdmin ? usernames : [],
    events,
    modules,
    locations,
    from: from?.toISOString(),
    until: rangeInvalid ? undefined : until?.toISOString(),
    page,
  });
  const pagination = log.data?.pagination;
  const scroller = usePageBounds(page, pagination, set);
  const columns = useColumns(isAdmin);

  const activeFilters = (isAdmin ? usernames.length : 0) + events.length + modules.length + locations.length + (from ? 1 : 0) + (until ? 1 : 0);
  const filtered = activeFilters > 0 || q !== "";

  function resetFilters() {
    setText("");
    setInvalidDate({ from: false, until: false });
    set({ q: null, user: null, event: null, module: null, location: null, from: null, until: null, page: null });
  }

  const picker = { set, loading: filters.isPending, placeholder: t("filter.any"), labels: pickerLabels };

  const showLocations = (filters.data?.locations.length ?? 0) > 0 || locations.length > 0;

  return (
    <>
      <PageHeader title={t("title")} description={isAdmin ? t("descriptionAdmin") : t("descriptionUser")} />

      <div className="mb-4 flex flex-col gap-3">
        <div className="flex flex-wrap items-start gap-x-3 gap-y-3">
          <Field label={t("filter.search")} className={cn(FILTER, "min-w-0 flex-1 md:max-w-sm")}>
            <SearchInput data-testid="activity-search" placeholder={t("search")} value={text} onValueChange={setText} clearLabel={t("clearSearch")} />
          </Field>
          <div
            className={cn(
              "order-last w-full flex-col gap-3 sm:flex-row md:order-none md:flex md:w-auto",
              showFilters ? "flex" : "hidden",
            )}
          >
            <Field
              label={t("filter.from")}
              error={invalidDate.from ? tv("invalidDate") : undefined}
              className={DATE}
            >
              <DatePicker
                data-testid="activity-from"
                value={from}
                onChange={(d) => set({ from: toIso(d), page: null })}
                onValidityChange={(valid) => setInvalidDate((s) => ({ ...s, from: !valid }))}
                withTime
                defaultTime="00:00"
                labels={dateLabels}
              />
            </Field>
            <Field
              label={t("filter.until")}
              error={invalidDate.until ? tv("invalidDate") : rangeInvalid ? t("filter.rangeInvalid") : undefined}
              className={DATE}
            >
              <DatePicker
                data-testid="activity-until"
                value={until}
                onChange={(d) => set({ until: toIso(d), page: null })}
                onValidityChange={(valid) => setInvalidDate((s) => ({ ...s, until: !valid }))}
                withTime
                defaultTime="23:59"
                labels={dateLabels}
              />
            </Field>
          </div>
          <Button
            variant="secondary"
            className="mt-5 h-9 md:hidden"
            aria-expanded={showFilters}
            aria-controls="activity-filters"
            onClick={() => setShowFilters((s) => !s)}
          >
            <ListFilter aria-hidden />
            {activeFilters ? t("filtersCount", { count: activeFilters }) : t("filters")}
          </Button>
          {filtered && (
            <Button variant="ghost" className="mt-5 h-9" onClick={resetFilters} data-testid="activity-reset">
              <FilterX aria-hidden />
              {t("reset")}
            </Button>
          )}
        </div>
        <div
          id="activity-filters"
          className={cn("flex flex-col gap-3 sm:flex-row sm:flex-wrap", !showFilters && "hidden md:flex")}
        >
          {isAdmin && <FilterPicker param="user" label={t("filter.user")} value={usernames} values={filters.data?.usernames} {...picker} />}
          <FilterPicker param="event" label={t("filter.event")} value={events} values={filters.data?.events} getLabel={labels.event} {...picker} />
          <FilterPicker param="module" label={t("filter.module")} value={modules} values={filters.data?.modules} getLabel={labels.module} {...picker} />
          {showLocations && (
            <FilterPicker param="location" label={t("filter.location")} value={locations} values={filters.data?.locations} {...picker} />
          )}
        </div>
      </div>

      {useMemo(
        () => (
          <DataTable
            testId="activity-table"
            containerRef={scroller}
            className="md:max-h-[calc(100dvh-300px)]"
            bodyClassName={cn(log.isPlaceholderData && "opacity-60 transition-opacity")}
            columns={columns}
            rows={log.data?.data}
            rowKey={(e) => e.id}
            rowProps={(e) => ({ "data-testid": "activity-row", "data-event": e.event, className: "[&>td]:h-10" })}
            skeletonRows={10}
            error={
              log.isError && !log.data
                ? { message: t("loadFailed"), detail: log.error.message, onRetry: () => log.refetch(), retrying: log.isFetching }
                : null
            }
            empty={
              filtered
                ? {
                    icon: SearchX,
                    title: t("empty.noMatch"),
                    description: t("empty.noMatchHint"),
                    action: (
                      <Button variant="secondary" onClick={resetFilters}>
                        {t("reset")}
                      </Button>
                    ),
                  }
                : { icon: Activity, title: t("empty.none"), description: t("empty.noneHint") }
            }
            footer={
              log.data && (
                <ServerPagingFooter
                  query={log}
                  pagination={pagination}
                  page={page}
                  pageSize={ACTIVITY_PAGE_SIZE}
                  set={set}
                  labels={pagerLabels}
                  loadFailed={t("loadFailed")}
                />
              )
            }
          />
        ),
        // Built only when the rows or their state change: typing in the search box leaves the rows be.
        // eslint-disable-next-line react-hooks/exhaustive-deps
        [log.data, log.isError, log.isFetching, log.isPlaceholderData, columns, filtered, page, pagerLabels, t],
      )}
    </>
  );
}
