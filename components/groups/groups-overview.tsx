"use client";

import { useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import { useQueryClient } from "@tanstack/react-query";
import { Pencil, Plus, SearchX, ShieldCheck, Trash2, UsersRound } from "lucide-react";
import { api } from "@/lib/api/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { PageHeader } from "@/components/ui/page-header";
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

/** Groups: name, members, admin flag, locations; create, edit (rename keeps members), delete. */
export function GroupsOverview() {
  const t = useTranslations("groups");
  const client = useQueryClient();
  const serverError = useServerError();
  const groups = useGroups();
  const [editing, setEditing] = useState<GroupInfo | null>(null);
  const [creating, setCreating] = useState(false);
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

  const columns: DataColumn<GroupInfo>[] = [
    {
      header: t("columns.name"),
      skeleton: "w-32",
      cellClassName: "w-full max-w-0 sm:w-[30%]",
      cell: (group) => (
        <>
          <div className="flex min-w-0 items-center gap-2">
            <button
              type="button"
              onClick={() => setEditing(group)}
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
        </>
      ),
    },
    {
      header: t("columns.members"),
      skeleton: "w-48",
      className: MEMBERS_COL,
      cellClassName: "max-w-0",
      cell: (group) => (
        <div className="flex min-w-0 items-center gap-2">
          <Badge data-testid="group-members-count" className="shrink-0 tabular-nums">
            <UsersRound aria-hidden />
            {group.members.length}
          </Badge>
          <Members members={group.members} />
        </div>
      ),
    },
    {
      header: t("columns.locations"),
      skeleton: "w-24",
      className: LOCATIONS_COL,
      cellClassName: "max-w-0",
      cell: (group) =>
        group.vpn_locations.length ? (
          <span className="flex flex-wrap gap-1">
            {group.vpn_locations.map((l) => (
              <Badge key={l}>{l}</Badge>
            ))}
          </span>
        ) : (
          <span className="text-fg-subtle">{t("noLocations")}</span>
        ),
    },
  ];

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
      <DataTable
        className="md:max-h-[calc(100dvh-240px)]"
        testId="groups-table"
        columns={columns}
        rows={groups.data ? rows : undefined}
        rowKey={(g) => g.id}
        skeletonRows={5}
        error={groups.isError ? { message: t("loadFailed"), detail: groups.error.message, onRetry: () => void groups.refetch(), retrying: groups.isFetching } : null}
        empty={
          total === 0
            ? {
                icon: UsersRound,
                title: t("empty.none"),
                description: t("empty.noneHint"),
                action: (
                  <Button onClick={() => setCreating(true)}>
                    <Plus aria-hidden />
                    {t("addGroup")}
                  </Button>
                ),
              }
            : {
                icon: SearchX,
                title: t("empty.noMatch", { q: filter.trim() }),
                action: (
                  <Button variant="secondary" onClick={() => setFilter("")}>
                    {t("empty.clear")}
                  </Button>
                ),
              }
        }
        rowProps={(g) => ({ "data-testid": "group-row", "data-group": g.name })}
        actions={{
          label: (g) => t("actions.open", { name: g.name }),
          columnLabel: t("columns.actions"),
          testId: (g) => `group-actions-${g.name}`,
          items: (g) => [
            { label: t("actions.edit"), icon: Pencil, testId: "group-action-edit", onSelect: () => setEditing(g) },
            {
              label: t("actions.delete"),
              icon: Trash2,
              danger: true,
              separated: true,
              testId: "group-action-delete",
              confirm: {
                title: t("deleteTitle", { name: g.name }),
                description:
                  g.members.length === 0
                    ? t("deleteDescriptionEmpty")
                    : g.is_admin
                      ? t("deleteDescriptionAdmin", { count: g.members.length })
                      : t("deleteDescription", { count: g.members.length }),
                confirmLabel: t("actions.delete"),
                run: () => remove(g),
              },
            },
          ],
        }}
      />

      <GroupDialog open={creating} onOpenChange={setCreating} />
      <GroupDialog group={editing ?? undefined} open={editing !== null} onOpenChange={(o) => !o && setEditing(null)} />
    </>
  );
}
