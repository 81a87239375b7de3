"use client";

import { useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import { useQueryClient } from "@tanstack/react-query";
import { Ellipsis, Pencil, Plus, SearchX, ShieldCheck, Trash2, UsersRound } from "lucide-react";
import { api } from "@/lib/api/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { cn } from "@/components/ui/cn";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuSeparator, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import { EmptyState } from "@/components/ui/empty-state";
import { InlineError } from "@/components/ui/inline-error";
import { PageHeader } from "@/components/ui/page-header";
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
import { toast } from "@/components/ui/toaster";
import { SearchInput } from "@/components/ui/search-input";
import { useServerError } from "@/components/users/server-errors";
import { useUrlState } from "@/components/users/url-state";
import { GroupDialog } from "./group-dialog";
import { groupPath, refreshAfterGroupChange, useGroups, type GroupInfo } from "./queries";

const MEMBERS_COL = "hidden sm:table-cell";
const LOCATIONS_COL = "hidden lg:table-cell";
const PREVIEW = 3;

function Members({ members }: { members: string[] }) {
  const t = useTranslations("groups");
  if (members.length === 0) return <span className="text-fg-subtle">{t("noMembers")}</span>;
  const rest = members.length - PREVIEW;
  return (
    <span className="block truncate text-fg-muted">
      <span className="font-mono text-xs">{members.slice(0, PREVIEW).join(", ")}</span>
      {rest > 0 && <span className="text-xs"> {t("andMore", { count: rest })}</span>}
    </span>
  );
}

function GroupRow({ group, onEdit, onDelete }: { group: GroupInfo; onEdit: () => void; onDelete: () => void }) {
  const t = useTranslations("groups");
  return (
    <TableRow data-testid="group-row" data-group={group.name}>
      <TableCell className="w-full max-w-0 sm:w-[30%]">
        <div className="flex min-w-0 items-center gap-2">
          <button
            type="button"
            onClick={onEdit}
            className="truncate text-left font-medium text-fg hover:underline focus-visible:outline-2"
          >
            {group.name}
          </button>
          {group.is_admin && (
            <Badge tone="accent" data-testid="group-admin-badge">
              <ShieldCheck aria-hidden />
              {t("adminBadge")}
            </Badge>
          )}
        </div>
        <p className="text-xs text-fg-muted sm:hidden">{t("membersCount", { count: group.members.length })}</p>
      </TableCell>
      <TableCell className={cn(MEMBERS_COL, "max-w-0")}>
        <div className="flex min-w-0 items-center gap-2">
          <Badge data-testid="group-members-count" className="shrink-0 tabular-nums">
            <UsersRound aria-hidden />
            {group.members.length}
          </Badge>
          <Members members={group.members} />
        </div>
      </TableCell>
      <TableCell className={cn(LOCATIONS_COL, "max-w-0")}>
        {group.vpn_locations.length ? (
          <span className="flex flex-wrap gap-1">
            {group.vpn_locations.map((l) => (
              <Badge key={l}>{l}</Badge>
            ))}
          </span>
        ) : (
          <span className="text-fg-subtle">{t("noLocations")}</span>
        )}
      </TableCell>
      <TableCell className="w-12 pr-2 text-right">
        <DropdownMenu modal={false}>
          <DropdownMenuTrigger asChild>
            <Button variant="ghost" size="icon" aria-label={t("actions.open", { name: group.name })} data-testid={`group-actions-${group.name}`}>
              <Ellipsis aria-hidden />
            </Button>
          </DropdownMenuTrigger>
          <DropdownMenuContent align="end">
            <DropdownMenuItem onSelect={onEdit} data-testid="group-action-edit">
              <Pencil aria-hidden />
              {t("actions.edit")}
            </DropdownMenuItem>
            <DropdownMenuSeparator />
            <DropdownMenuItem danger onSelect={onDelete} data-testid="group-action-delete">
              <Trash2 aria-hidden />
              {t("actions.delete")}
            </DropdownMenuItem>
          </DropdownMenuContent>
        </DropdownMenu>
      </TableCell>
    </TableRow>
  );
}

/** Groups: name, members, admin flag, locations; create, edit (rename keeps members), delete. */
export function GroupsOverview() {
  const t = useTranslations("groups");
  const client = useQueryClient();
  const serverError = useServerError();
  const groups = useGroups();
  const [editing, setEditing] = useState<GroupInfo | null>(null);
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<GroupInfo | null>(null);
  // The filter is kept in the address so a view can be shared (docs/ui.md).
  const { params, set } = useUrlState();
  const [filter, setFilterText] = useState(() => params.get("q") ?? "");
  const setFilter = (v: string) => {
    setFilterText(v);
    set({ q: v.trim() || null });
  };

  const rows = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const all = groups.data ?? [];
    return needle ? all.filter((g) => g.name.toLowerCase().includes(needle) || g.members.some((m) => m.toLowerCase().includes(needle))) : all;
  }, [groups.data, filter]);

  async function remove(group: GroupInfo) {
    try {
      await api.delete(groupPath(group.name));
    } catch (err) {
      toast.error(t("deleteFailed"), { subMessage: serverError(err) });
      throw err;
    }
    toast.success(t("deleted", { name: group.name }));
    await refreshAfterGroupChange(client);
  }

  const total = groups.data?.length ?? 0;

  return (
    <>
      <PageHeader
        title={t("title")}
        description={t("description")}
        action={
          <Button data-testid="add-group" onClick={() => setCreating(true)}>
            <Plus aria-hidden />
            {t("addGroup")}
          </Button>
        }
      />
      {total > 0 && (
        <SearchInput
          className="mb-4 sm:max-w-sm"
          aria-label={t("search")}
          placeholder={t("search")}
          value={filter}
          onValueChange={setFilter}
          clearLabel={t("clearSearch")}
        />
      )}
      {groups.isError ? (
        <InlineError message={t("loadFailed")} detail={groups.error.message} onRetry={() => groups.refetch()} retrying={groups.isFetching} />
      ) : (
        <TableContainer className="md:max-h-[calc(100dvh-240px)]" data-testid="groups-table">
          <Table>
            <TableHeader>
              <tr>
                <TableHead>{t("columns.name")}</TableHead>
                <TableHead className={MEMBERS_COL}>{t("columns.members")}</TableHead>
                <TableHead className={LOCATIONS_COL}>{t("columns.locations")}</TableHead>
                <TableHead className="w-12">
                  <span className="sr-only">{t("columns.actions")}</span>
                </TableHead>
              </tr>
            </TableHeader>
            <TableBody>
              {groups.isPending ? (
                <TableSkeletonRows
                  rows={5}
                  columns={[
                    { width: "w-32" },
                    { width: "w-48", className: MEMBERS_COL },
                    { width: "w-24", className: LOCATIONS_COL },
                    { width: "w-6" },
                  ]}
                />
              ) : rows.length === 0 ? (
                <TableMessageRow colSpan={4}>
                  {total === 0 ? (
                    <EmptyState
                      icon={UsersRound}
                      title={t("empty.none")}
                      description={t("empty.noneHint")}
                      action={
                        <Button onClick={() => setCreating(true)}>
                          <Plus aria-hidden />
                          {t("addGroup")}
                        </Button>
                      }
                    />
                  ) : (
                    <EmptyState
                      icon={SearchX}
                      title={t("empty.noMatch", { q: filter.trim() })}
                      action={
                        <Button variant="secondary" onClick={() => setFilter("")}>
                          {t("empty.clear")}
                        </Button>
                      }
                    />
                  )}
                </TableMessageRow>
              ) : (
                rows.map((g) => <GroupRow key={g.id} group={g} onEdit={() => setEditing(g)} onDelete={() => setDeleting(g)} />)
              )}
            </TableBody>
          </Table>
        </TableContainer>
      )}

      <GroupDialog open={creating} onOpenChange={setCreating} />
      <GroupDialog group={editing ?? undefined} open={editing !== null} onOpenChange={(o) => !o && setEditing(null)} />
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={t("deleteTitle", { name: deleting?.name ?? "" })}
        description={
          !deleting || deleting.members.length === 0
            ? t("deleteDescriptionEmpty")
            : deleting.is_admin
              ? t("deleteDescriptionAdmin", { count: deleting.members.length })
              : t("deleteDescription", { count: deleting.members.length })
        }
        confirmLabel={t("actions.delete")}
        danger
        onConfirm={() => deleting && remove(deleting)}
      />
    </>
  );
}
