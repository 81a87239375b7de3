"use client";

import { memo, useEffect, useMemo, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import { Activity, FilterX, ListFilter, SearchX } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { DatePicker } from "@/components/ui/date-picker";
import { EmptyState } from "@/components/ui/empty-state";
import { Field } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { MultiSelect, type MultiSelectOption } from "@/components/ui/multi-select";
import { PageHeader } from "@/components/ui/page-header";
import { Pagination } from "@/components/ui/pagination";
import { RelativeTime } from "@/components/ui/relative-time";
import {
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableHeader,
  TableMessageRow,
  TableRow,
  TableSkeletonRows,
} from "@/components/ui/table";
import { useDebouncedValue } from "@/components/ui/use-debounced-value";
import { SearchInput } from "@/components/ui/search-input";
import { useDatePickerLabels, useMultiSelectLabels, usePagerLabels } from "@/components/users/labels";
import { intParam, useUrlState } from "@/components/users/url-state";
import { ACTIVITY_PAGE_SIZE, useActivity, useActivityFilters, type ActivityEvent } from "./queries";

const WIDE = "hidden lg:table-cell";
const SMALL = "hidden sm:table-cell";
const MEDIUM = "hidden md:table-cell";
const COLUMNS = 8;
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

const EventRow = memo(function EventRow({ e, showUser }: { e: ActivityEvent; showUser: boolean }) {
  const labels = useLabels();
  const dash = <span className="text-fg-subtle">—</span>;
  return (
    <TableRow data-testid="activity-row" data-event={e.event} className="[&>td]:h-10">
      <TableCell className="whitespace-nowrap align-top text-fg-muted sm:align-middle">
        <RelativeTime value={e.timestamp} />
        {/* Narrow screens: the user under the date (their own column from md). */}
        {showUser && <p className="mt-0.5 max-w-32 truncate text-xs font-medium text-fg md:hidden">{e.username}</p>}
      </TableCell>
      {showUser && <TableCell className={cn(MEDIUM, "max-w-40 truncate font-medium")}>{e.username}</TableCell>}
      <TableCell className={cn(WIDE, "whitespace-nowrap font-mono text-xs text-fg-muted")}>{e.ip ?? dash}</TableCell>
      <TableCell className={cn(WIDE, "max-w-32 truncate")}>{e.location ?? dash}</TableCell>
      <TableCell className="py-2 align-top sm:align-middle">
        <Badge tone={eventTone(e.event)} title={e.event} data-testid="activity-event">
          {labels.event(e.event)}
        </Badge>
        {/* Narrow screens: the description under the event (its own column from sm). */}
        {e.description && <p className="mt-1 line-clamp-2 break-words text-xs text-fg-muted sm:hidden">{e.description}</p>}
      </TableCell>
      <TableCell className={cn(MEDIUM, "whitespace-nowrap text-fg-muted")}>{labels.module(e.module)}</TableCell>
      <TableCell className={cn(WIDE, "max-w-32 truncate")}>{e.device ?? dash}</TableCell>
      <TableCell className={cn(SMALL, "min-w-48 text-fg-muted")}>
        <span className="line-clamp-2 break-words" title={e.description}>
          {e.description ?? dash}
        </span>
      </TableCell>
    </TableRow>
  );
});

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
  const scroller = useRef<HTMLDivElement>(null);

  const q = params.get("q") ?? "";
  const usernames = params.getAll("user");
  const events = params.getAll("event");
  const modules = params.getAll("module");
  const locations = params.getAll("location");
  const from = fromIso(params.get("from"));
  const until = fromIso(params.get("until"));
  const page = intParam(params.get("page"));
  const rangeInvalid = from !== undefined && until !== undefined && from > until;

  const [text, setText] = useState(q);
  const debounced = useDebouncedValue(text.trim(), 250);
  useEffect(() => {
    if (debounced !== q) set({ q: debounced, page: null });
    // Only when the typed text settles.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debounced]);

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
  useEffect(() => {
    if (pagination && page > pagination.total_pages) set({ page: pagination.total_pages > 1 ? pagination.total_pages : null });
  }, [pagination, page, set]);
  useEffect(() => {
    scroller.current?.scrollTo({ top: 0 });
  }, [page]);

  const activeFilters = (isAdmin ? usernames.length : 0) + events.length + modules.length + locations.length + (from ? 1 : 0) + (until ? 1 : 0);
  const filtered = activeFilters > 0 || q !== "";

  function resetFilters() {
    setText("");
    setInvalidDate({ from: false, until: false });
    set({ q: null, user: null, event: null, module: null, location: null, from: null, until: null, page: null });
  }

  const opts = (values: string[] | undefined, label: (v: string) => string = (v) => v): MultiSelectOption[] =>
    (values ?? []).map((v) => ({ value: v, label: label(v), description: label(v) !== v ? v : undefined }));

  const rows = log.data?.data ?? [];
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
          {isAdmin && (
            <Field label={t("filter.user")} className={PICKER}>
              <MultiSelect
                data-testid="activity-filter-user"
                value={usernames}
                onChange={(v) => set({ user: v, page: null })}
                options={opts(filters.data?.usernames)}
                loading={filters.isPending}
                placeholder={t("filter.any")}
                labels={pickerLabels}
                maxChips={2}
              />
            </Field>
          )}
          <Field label={t("filter.event")} className={PICKER}>
            <MultiSelect
              data-testid="activity-filter-event"
              value={events}
              onChange={(v) => set({ event: v, page: null })}
              options={opts(filters.data?.events, labels.event)}
              getLabel={labels.event}
              loading={filters.isPending}
              placeholder={t("filter.any")}
              labels={pickerLabels}
              maxChips={2}
            />
          </Field>
          <Field label={t("filter.module")} className={PICKER}>
            <MultiSelect
              data-testid="activity-filter-module"
              value={modules}
              onChange={(v) => set({ module: v, page: null })}
              options={opts(filters.data?.modules, labels.module)}
              getLabel={labels.module}
              loading={filters.isPending}
              placeholder={t("filter.any")}
              labels={pickerLabels}
              maxChips={2}
            />
          </Field>
          {showLocations && (
            <Field label={t("filter.location")} className={PICKER}>
              <MultiSelect
                data-testid="activity-filter-location"
                value={locations}
                onChange={(v) => set({ location: v, page: null })}
                options={opts(filters.data?.locations)}
                loading={filters.isPending}
                placeholder={t("filter.any")}
                labels={pickerLabels}
                maxChips={2}
              />
            </Field>
          )}
        </div>
      </div>

      {log.isError && !log.data ? (
        <InlineError message={t("loadFailed")} detail={log.error.message} onRetry={() => log.refetch()} retrying={log.isFetching} />
      ) : (
        <>
          <TableContainer ref={scroller} className="md:max-h-[calc(100dvh-300px)]" data-testid="activity-table">
            <Table>
              <TableHeader>
                <tr>
                  <TableHead>{t("columns.date")}</TableHead>
                  {isAdmin && <TableHead className={MEDIUM}>{t("columns.user")}</TableHead>}
                  <TableHead className={WIDE}>{t("columns.ip")}</TableHead>
                  <TableHead className={WIDE}>{t("columns.location")}</TableHead>
                  <TableHead>{t("columns.event")}</TableHead>
                  <TableHead className={MEDIUM}>{t("columns.module")}</TableHead>
                  <TableHead className={WIDE}>{t("columns.device")}</TableHead>
                  <TableHead className={SMALL}>{t("columns.description")}</TableHead>
                </tr>
              </TableHeader>
              <TableBody className={cn(log.isPlaceholderData && "opacity-60 transition-opacity")}>
                {log.isPending ? (
                  <TableSkeletonRows
                    rows={10}
                    columns={[
                      { width: "w-20" },
                      ...(isAdmin ? [{ width: "w-20", className: MEDIUM }] : []),
                      { width: "w-20", className: WIDE },
                      { width: "w-16", className: WIDE },
                      { width: "w-24" },
                      { width: "w-16", className: MEDIUM },
                      { width: "w-16", className: WIDE },
                      { width: "w-48", className: SMALL },
                    ]}
                  />
                ) : rows.length === 0 ? (
                  <TableMessageRow colSpan={COLUMNS}>
                    {filtered ? (
                      <EmptyState
                        icon={SearchX}
                        title={t("empty.noMatch")}
                        description={t("empty.noMatchHint")}
                        action={
                          <Button variant="secondary" onClick={resetFilters}>
                            {t("reset")}
                          </Button>
                        }
                      />
                    ) : (
                      <EmptyState icon={Activity} title={t("empty.none")} description={t("empty.noneHint")} />
                    )}
                  </TableMessageRow>
                ) : (
                  rows.map((e) => <EventRow key={e.id} e={e} showUser={isAdmin} />)
                )}
              </TableBody>
            </Table>
          </TableContainer>
          {log.isError && (
            <InlineError className="mt-3" message={t("loadFailed")} detail={log.error.message} onRetry={() => log.refetch()} retrying={log.isFetching} />
          )}
          {pagination && pagination.total_items > 0 && (
            <Pagination
              className="mt-3"
              page={Math.min(page, pagination.total_pages)}
              pageCount={pagination.total_pages}
              total={pagination.total_items}
              pageSize={ACTIVITY_PAGE_SIZE}
              onPageChange={(p) => set({ page: p === 1 ? null : p })}
              labels={pagerLabels}
              busy={log.isFetching && log.isPlaceholderData}
            />
          )}
        </>
      )}
    </>
  );
}
