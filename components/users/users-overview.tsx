"use client";

import { useMemo, useState } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import { SearchX, ShieldCheck, ShieldOff, UserPlus, Users } from "lucide-react";
import type { UserInfo } from "@/lib/api/types";
import { useCurrentUser } from "@/components/auth/use-current-user";
import { displayName, UserAvatar } from "@/components/shell/user-avatar";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { PageHeader } from "@/components/ui/page-header";
import { SearchInput } from "@/components/ui/search-input";
import { ServerPagingFooter, usePageBounds, useSearchText } from "@/components/ui/server-paging";
import { AddUserDialog } from "./add-user-dialog";
import { usePagerLabels } from "./labels";
import { USERS_PAGE_SIZE, useUsersPage, type UsersFilter, type UsersSort } from "./queries";
import { intParam, useUrlState } from "./url-state";
import { UserActionsMenu } from "./user-actions";
import { UsersBulkBar } from "./users-bulk";
import { useBulkSelection } from "@/components/ui/bulk-selection";

const FILTERS: UsersFilter[] = ["all", "admins", "users"];
const SORTS: UsersSort[] = ["username", "-username", "name", "-name"];

// Columns that give way on narrow screens (the name cell repeats the login there).
const LOGIN_COL = "hidden md:table-cell";
const WIDE_COL = "hidden lg:table-cell";

function FilterSwitch({ value, onChange }: { value: UsersFilter; onChange: (f: UsersFilter) => void }) {
  const t = useTranslations("users.filter");
  return (
    <div
      role="radiogroup"
      aria-label={t("label")}
      className="inline-flex h-9 shrink-0 items-center rounded-md border border-border-strong bg-subtle p-0.5"
      onKeyDown={(e) => {
        // Radio-group keyboard: the arrows move the choice (one tab stop for the group).
        const step = e.key === "ArrowRight" || e.key === "ArrowDown" ? 1 : e.key === "ArrowLeft" || e.key === "ArrowUp" ? -1 : 0;
        if (!step) return;
        e.preventDefault();
        const next = FILTERS[(FILTERS.indexOf(value) + step + FILTERS.length) % FILTERS.length];
        onChange(next);
        e.currentTarget.querySelector<HTMLButtonElement>(`[data-testid="users-filter-${next}"]`)?.focus();
      }}
    >
      {FILTERS.map((f) => (
        <button
          key={f}
          type="button"
          role="radio"
          aria-checked={value === f}
          tabIndex={value === f ? 0 : -1}
          data-testid={`users-filter-${f}`}
          onClick={() => onChange(f)}
          className={cn(
            "h-full flex-1 whitespace-nowrap rounded-sm px-3 text-sm font-medium text-fg-muted transition-colors focus-visible:outline-2",
            value === f ? "bg-surface text-fg shadow-xs" : "hover:text-fg",
          )}
        >
          {t(f)}
        </button>
      ))}
    </div>
  );
}

type SortColumn = "username" | "name";

function useColumns(selfId: number | undefined): DataColumn<UserInfo, SortColumn>[] {
  const t = useTranslations("users");
  return useMemo(
    () => [
      {
        header: t("columns.name"),
        sortKey: "name",
        skeleton: "w-48",
        cellClassName: "w-full max-w-0 md:w-[45%] lg:w-[34%]",
        cell: (user) => (
          <div className="flex min-w-0 items-center gap-3">
            <UserAvatar user={user} size={32} />
            <div className="min-w-0">
              <div className="flex min-w-0 items-center gap-2">
                <Link
                  href={`/users/${encodeURIComponent(user.username)}`}
                  // 50 rows would prefetch 50 profile pages and slow the next page of the list.
                  prefetch={false}
                  className="truncate font-medium text-fg hover:underline focus-visible:outline-2"
                >
                  {displayName(user)}
                </Link>
                {user.is_admin && <Badge tone="accent">{t("admin")}</Badge>}
              </div>
              <p className="truncate text-xs text-fg-muted">
                <span className="font-mono md:hidden">{user.username} · </span>
                {user.email}
              </p>
            </div>
          </div>
        ),
      },
      {
        header: t("columns.login"),
        sortKey: "username",
        className: LOGIN_COL,
        cellClassName: "font-mono text-xs",
        skeleton: "w-24",
        cell: (user) => (
          <span className="block max-w-48 truncate lg:max-w-60" title={user.username}>
            {user.username}
          </span>
        ),
      },
      {
        header: t("columns.phone"),
        className: WIDE_COL,
        cellClassName: "whitespace-nowrap tabular-nums text-fg-muted",
        skeleton: "w-24",
        cell: (user) => user.phone || <span className="text-fg-subtle">—</span>,
      },
      {
        header: t("columns.mfa"),
        className: WIDE_COL,
        skeleton: "w-16",
        cell: (user) => (
          <Badge tone={user.mfa_enabled ? "success" : "neutral"} data-testid="user-mfa">
            {user.mfa_enabled ? <ShieldCheck aria-hidden /> : <ShieldOff aria-hidden />}
            {user.mfa_enabled ? t("mfaOn") : t("mfaOff")}
          </Badge>
        ),
      },
      {
        header: t("columns.status"),
        cellClassName: "w-px whitespace-nowrap",
        skeleton: "w-14",
        cell: (user) => (
          <Badge tone={user.is_active ? "success" : "error"} data-testid="user-status">
            {user.is_active ? t("active") : t("disabled")}
          </Badge>
        ),
      },
      {
        header: <span className="sr-only">{t("columns.actions")}</span>,
        className: "w-12",
        cellClassName: "pr-2 text-right",
        skeleton: "w-6",
        cell: (user) => <UserActionsMenu user={user} isSelf={user.id === selfId} />,
      },
    ],
    [t, selfId],
  );
}

/** Users overview: search, filter, server-side pages of 50, row actions, add user. */
export function UsersOverview() {
  const t = useTranslations("users");
  const { params, set } = useUrlState();
  const me = useCurrentUser().data;
  const pagerLabels = usePagerLabels("users");

  const q = params.get("q") ?? "";
  const rawFilter = params.get("filter") as UsersFilter | null;
  const filter: UsersFilter = rawFilter && FILTERS.includes(rawFilter) ? rawFilter : "all";
  const rawSort = params.get("sort") as UsersSort | null;
  const sort: UsersSort = rawSort && SORTS.includes(rawSort) ? rawSort : "username";
  const page = intParam(params.get("page"));

  const [text, setText] = useSearchText(q, set);
  const [adding, setAdding] = useState(false);
  const users = useUsersPage({ search: q, filter, page, sort });
  const pagination = users.data?.pagination;
  const scroller = usePageBounds(page, pagination, set);
  const columns = useColumns(me?.id);
  // Bulk selection: kept here, so it survives paging, sorting, searching and filtering.
  const bulkFilter = useMemo(() => ({ search: q || undefined, filter }), [q, filter]);
  const selection = useBulkSelection(bulkFilter);
  const tb = useTranslations("bulk");
  const rowSelection = selection.table(users.data?.data, (u) => u.id, (u) => u.username, {
    row: (name) => tb("selectRow", { name }),
    page: tb("selectPage"),
  });

  const sortBy = (column: SortColumn) =>
    set({ sort: sort === column ? `-${column}` : column === "username" ? null : column, page: null });

  const filtered = q !== "" || filter !== "all";

  return (
    <>
      <PageHeader
        title={t("title")}
        description={t("description")}
        action={
          <Button data-testid="add-user" onClick={() => setAdding(true)}>
            <UserPlus aria-hidden />
            {t("addUser")}
          </Button>
        }
      />
      <div className="mb-4 flex flex-col gap-3 sm:flex-row sm:items-center">
        <SearchInput
          className="flex-1 sm:max-w-sm"
          data-testid="users-search"
          aria-label={t("search")}
          placeholder={t("search")}
          value={text}
          onValueChange={setText}
          clearLabel={t("clearSearch")}
        />
        <FilterSwitch value={filter} onChange={(f) => set({ filter: f === "all" ? null : f, page: null })} />
      </div>

      <UsersBulkBar selection={selection} total={pagination?.total_items} />

      {/* Built only when the rows or their state change: typing in the search box leaves the rows be. */}
      {useMemo(
        () => (
          <DataTable
            testId="users-table"
            containerRef={scroller}
            className="md:max-h-[calc(100dvh-260px)]"
            bodyClassName={cn(users.isPlaceholderData && "opacity-60 transition-opacity")}
            columns={columns}
            rows={users.data?.data}
            rowKey={(u) => u.id}
            selection={rowSelection}
            rowProps={(u) => ({ "data-testid": "user-row", "data-username": u.username })}
            skeletonRows={10}
            sort={{
              key: sort.replace(/^-/, "") as SortColumn,
              dir: sort.startsWith("-") ? "desc" : "asc",
              onSort: sortBy,
            }}
            error={
              users.isError && !users.data
                ? { message: t("loadFailed"), detail: users.error.message, onRetry: () => users.refetch(), retrying: users.isFetching }
                : null
            }
            empty={
              filtered
                ? {
                    icon: SearchX,
                    title: q ? t("empty.noMatch", { q }) : t("empty.noMatchFilter"),
                    description: t("empty.noMatchHint"),
                    action: (
                      <Button
                        variant="secondary"
                        onClick={() => {
                          setText("");
                          set({ q: null, filter: null, page: null });
                        }}
                      >
                        {t("empty.clear")}
                      </Button>
                    ),
                  }
                : {
                    icon: Users,
                    title: t("empty.none"),
                    description: t("empty.noneHint"),
                    action: (
                      <Button onClick={() => setAdding(true)}>
                        <UserPlus aria-hidden />
                        {t("addUser")}
                      </Button>
                    ),
                  }
            }
            footer={
              users.data && (
                <ServerPagingFooter
                  query={users}
                  pagination={pagination}
                  page={page}
                  pageSize={USERS_PAGE_SIZE}
                  set={set}
                  labels={pagerLabels}
                  loadFailed={t("loadFailed")}
                />
              )
            }
          />
        ),
        // eslint-disable-next-line react-hooks/exhaustive-deps
        [users.data, users.isError, users.isFetching, users.isPlaceholderData, columns, sort, filtered, q, page, pagerLabels, t, selection],
      )}
      <AddUserDialog open={adding} onOpenChange={setAdding} />
    </>
  );
}
