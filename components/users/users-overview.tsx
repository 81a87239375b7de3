"use client";

import { memo, useEffect, useRef, useState } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import { SearchX, ShieldCheck, ShieldOff, UserPlus, Users } from "lucide-react";
import type { UserInfo } from "@/lib/api/types";
import { useCurrentUser } from "@/components/auth/use-current-user";
import { displayName, UserAvatar } from "@/components/shell/user-avatar";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/empty-state";
import { InlineError } from "@/components/ui/inline-error";
import { PageHeader } from "@/components/ui/page-header";
import { Pagination } from "@/components/ui/pagination";
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
import { AddUserDialog } from "./add-user-dialog";
import { usePagerLabels } from "./labels";
import { USERS_PAGE_SIZE, useUsersPage, type UsersFilter, type UsersSort } from "./queries";
import { intParam, useUrlState } from "./url-state";
import { UserActionsMenu } from "./user-actions";

const FILTERS: UsersFilter[] = ["all", "admins", "users"];
const SORTS: UsersSort[] = ["username", "-username", "name", "-name"];
const COLUMNS = 6;

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

/** One row; memoised so typing in the search box does not re-render the page of rows. */
const UserRow = memo(function UserRow({ user, isSelf }: { user: UserInfo; isSelf: boolean }) {
  const t = useTranslations("users");
  const name = displayName(user);
  return (
    <TableRow data-testid="user-row" data-username={user.username}>
      <TableCell className="w-full max-w-0 md:w-[45%] lg:w-[34%]">
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
                {name}
              </Link>
              {user.is_admin && <Badge tone="accent">{t("admin")}</Badge>}
            </div>
            <p className="truncate text-xs text-fg-muted">
              <span className="font-mono md:hidden">{user.username} · </span>
              {user.email}
            </p>
          </div>
        </div>
      </TableCell>
      <TableCell className={cn(LOGIN_COL, "font-mono text-xs")}>
        <span className="block max-w-48 truncate lg:max-w-60" title={user.username}>
          {user.username}
        </span>
      </TableCell>
      <TableCell className={cn(WIDE_COL, "whitespace-nowrap tabular-nums text-fg-muted")}>
        {user.phone || <span className="text-fg-subtle">—</span>}
      </TableCell>
      <TableCell className={WIDE_COL}>
        <Badge tone={user.mfa_enabled ? "success" : "neutral"} data-testid="user-mfa">
          {user.mfa_enabled ? <ShieldCheck aria-hidden /> : <ShieldOff aria-hidden />}
          {user.mfa_enabled ? t("mfaOn") : t("mfaOff")}
        </Badge>
      </TableCell>
      <TableCell className="w-px whitespace-nowrap">
        <Badge tone={user.is_active ? "success" : "error"} data-testid="user-status">
          {user.is_active ? t("active") : t("disabled")}
        </Badge>
      </TableCell>
      <TableCell className="w-12 pr-2 text-right">
        <UserActionsMenu user={user} isSelf={isSelf} />
      </TableCell>
    </TableRow>
  );
});

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

  const [text, setText] = useState(q);
  const debounced = useDebouncedValue(text.trim(), 250);
  useEffect(() => {
    if (debounced !== q) set({ q: debounced, page: null });
    // Only when the typed text settles.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debounced]);

  const [adding, setAdding] = useState(false);
  const scroller = useRef<HTMLDivElement>(null);
  // A new page starts at its first row.
  useEffect(() => {
    scroller.current?.scrollTo({ top: 0 });
  }, [page]);
  const users = useUsersPage({ search: q, filter, page, sort });
  const pagination = users.data?.pagination;

  // A page that no longer exists (after deletions or a narrower search): go to the last one.
  useEffect(() => {
    if (pagination && page > pagination.total_pages) set({ page: pagination.total_pages > 1 ? pagination.total_pages : null });
  }, [pagination, page, set]);

  function sortBy(column: "username" | "name") {
    set({ sort: sort === column ? `-${column}` : column === "username" ? null : column, page: null });
  }
  const sortOf = (column: "username" | "name") => (sort === column ? "asc" : sort === `-${column}` ? "desc" : false);

  const filtered = q !== "" || filter !== "all";
  const rows = users.data?.data ?? [];

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

      {users.isError && !users.data ? (
        <InlineError
          message={t("loadFailed")}
          detail={users.error.message}
          onRetry={() => users.refetch()}
          retrying={users.isFetching}
        />
      ) : (
        <>
          <TableContainer ref={scroller} className="md:max-h-[calc(100dvh-260px)]" data-testid="users-table">
            <Table>
              <TableHeader>
                <tr>
                  <TableHead sort={sortOf("name")} onSort={() => sortBy("name")}>
                    {t("columns.name")}
                  </TableHead>
                  <TableHead className={LOGIN_COL} sort={sortOf("username")} onSort={() => sortBy("username")}>
                    {t("columns.login")}
                  </TableHead>
                  <TableHead className={WIDE_COL}>{t("columns.phone")}</TableHead>
                  <TableHead className={WIDE_COL}>{t("columns.mfa")}</TableHead>
                  <TableHead>{t("columns.status")}</TableHead>
                  <TableHead className="w-12">
                    <span className="sr-only">{t("columns.actions")}</span>
                  </TableHead>
                </tr>
              </TableHeader>
              <TableBody className={cn(users.isPlaceholderData && "opacity-60 transition-opacity")}>
                {users.isPending ? (
                  <TableSkeletonRows
                    rows={10}
                    columns={[
                      { width: "w-48" },
                      { width: "w-24", className: LOGIN_COL },
                      { width: "w-24", className: WIDE_COL },
                      { width: "w-16", className: WIDE_COL },
                      { width: "w-14" },
                      { width: "w-6" },
                    ]}
                  />
                ) : rows.length === 0 ? (
                  <TableMessageRow colSpan={COLUMNS}>
                    {filtered ? (
                      <EmptyState
                        icon={SearchX}
                        title={q ? t("empty.noMatch", { q }) : t("empty.noMatchFilter")}
                        description={t("empty.noMatchHint")}
                        action={
                          <Button
                            variant="secondary"
                            onClick={() => {
                              setText("");
                              set({ q: null, filter: null, page: null });
                            }}
                          >
                            {t("empty.clear")}
                          </Button>
                        }
                      />
                    ) : (
                      <EmptyState
                        icon={Users}
                        title={t("empty.none")}
                        description={t("empty.noneHint")}
                        action={
                          <Button onClick={() => setAdding(true)}>
                            <UserPlus aria-hidden />
                            {t("addUser")}
                          </Button>
                        }
                      />
                    )}
                  </TableMessageRow>
                ) : (
                  rows.map((u) => <UserRow key={u.id} user={u} isSelf={u.id === me?.id} />)
                )}
              </TableBody>
            </Table>
          </TableContainer>
          {users.isError && (
            <InlineError
              className="mt-3"
              message={t("loadFailed")}
              detail={users.error.message}
              onRetry={() => users.refetch()}
              retrying={users.isFetching}
            />
          )}
          {pagination && pagination.total_items > 0 && (
            <Pagination
              className="mt-3"
              page={Math.min(page, pagination.total_pages)}
              pageCount={pagination.total_pages}
              total={pagination.total_items}
              pageSize={USERS_PAGE_SIZE}
              onPageChange={(p) => set({ page: p === 1 ? null : p })}
              labels={pagerLabels}
              busy={users.isFetching && users.isPlaceholderData}
            />
          )}
        </>
      )}
      <AddUserDialog open={adding} onOpenChange={setAdding} />
    </>
  );
}
