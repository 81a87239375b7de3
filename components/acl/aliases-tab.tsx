"use client";

import { useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import { useQueryClient } from "@tanstack/react-query";
import { Layers, Pencil, Plus, Rocket, SearchX, Trash2, Undo2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { useServerError } from "@/components/users/server-errors";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { DataTable, type DataColumn, type RowAction } from "@/components/ui/data-table";
import { toast } from "@/components/ui/toaster";
import { aliasKind, aliasState, protocolName, refreshAcl, splitList, useAliases, useRules, type AclAlias } from "./api";
import { AliasDialog } from "./alias-dialog";
import { Chips } from "./chips";
import { DeployDialog } from "./deploy-dialog";
import { SectionTitle } from "./section-title";
import { AliasStateBadge } from "./state-badge";

const HIDE_SM = "hidden md:table-cell";
const HIDE_LG = "hidden lg:table-cell";

/** Aliases: pending changes (deployable, discardable) above the deployed aliases. */
export function AliasesTab({
  filter,
  onClearFilter,
  creating,
  onCreatingChange,
}: {
  filter: string;
  onClearFilter: () => void;
  creating: boolean;
  onCreatingChange: (open: boolean) => void;
}) {
  const t = useTranslations("acl.aliases");
  const tc = useTranslations("acl");
  const client = useQueryClient();
  const serverError = useServerError();
  const aliases = useAliases();
  const rules = useRules();
  const [editing, setEditing] = useState<AclAlias | null>(null);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [deploying, setDeploying] = useState<number[] | null>(null);
  const [busy, setBusy] = useState<number | null>(null);

  const ruleName = useMemo(() => new Map((rules.data ?? []).map((r) => [r.id, r.name])), [rules.data]);
  const ruleNamesOf = (a: AclAlias) => [...new Set(a.rules.map((id) => ruleName.get(id) ?? `#${id}`))];

  const all = useMemo(() => aliases.data ?? [], [aliases.data]);
  const needle = filter.trim().toLowerCase();
  const matches = useMemo(
    () =>
      needle
        ? all.filter((a) => [a.name, a.destination, a.ports, ...a.rules.map((id) => ruleName.get(id) ?? "")].join(" ").toLowerCase().includes(needle))
        : all,
    [all, needle, ruleName],
  );
  const byName = (a: AclAlias, b: AclAlias) => a.name.localeCompare(b.name) || a.id - b.id;
  const pendingAll = useMemo(() => all.filter((a) => aliasState(a) === "modified"), [all]);
  const pending = useMemo(() => matches.filter((a) => aliasState(a) === "modified").sort(byName), [matches]);
  const deployed = useMemo(() => matches.filter((a) => aliasState(a) !== "modified").sort(byName), [matches]);
  const childOf = useMemo(() => new Map(pendingAll.filter((a) => a.parent_id).map((a) => [a.parent_id!, a])), [pendingAll]);
  const selectedIds = pendingAll.filter((a) => selected.has(a.id)).map((a) => a.id);

  async function remove(a: AclAlias, pendingChange: boolean) {
    setBusy(a.id);
    try {
      await api.delete(`/acl/alias/${a.id}`);
      toast.success(pendingChange ? t("discarded", { name: a.name }) : t("deleted", { name: a.name }));
      await refreshAcl(client);
    } catch (err) {
      toast.error(pendingChange ? t("discardFailed") : t("deleteFailed", { name: a.name }), { subMessage: serverError(err) });
      throw err;
    } finally {
      setBusy(null);
    }
  }

  const columns = (selectable: boolean): DataColumn<AclAlias>[] => [
    ...(selectable
      ? [
          {
            header: (
              <Checkbox
                aria-label={t("selectAll")}
                checked={pending.length > 0 && pending.every((a) => selected.has(a.id)) ? true : pending.some((a) => selected.has(a.id)) ? "indeterminate" : false}
                onCheckedChange={(v) => setSelected(v === true ? new Set([...selected, ...pending.map((a) => a.id)]) : new Set())}
              />
            ),
            skeleton: "w-4",
            className: "w-8 pr-0",
            cell: (a: AclAlias) => (
              <Checkbox
                aria-label={t("select", { name: a.name })}
                data-testid="alias-select"
                checked={selected.has(a.id)}
                onCheckedChange={(v) =>
                  setSelected((s) => {
                    const n = new Set(s);
                    if (v === true) n.add(a.id);
                    else n.delete(a.id);
                    return n;
                  })
                }
              />
            ),
          } satisfies DataColumn<AclAlias>,
        ]
      : []),
    {
      header: t("columns.name"),
      skeleton: "w-32",
      cellClassName: "max-w-0 w-full md:w-[22%] md:max-w-56",
      cell: (a) => (
        <div className="min-w-0">
          <button type="button" onClick={() => setEditing(childOf.get(a.id) ?? a)} className="block max-w-full truncate text-left font-medium text-fg hover:underline focus-visible:outline-2">
            {a.name}
          </button>
          {!selectable && childOf.has(a.id) && <p className="text-xs text-warning">{t("hasPendingChange")}</p>}
        </div>
      ),
    },
    { header: t("columns.kind"), skeleton: "w-20", className: HIDE_SM, cell: (a) => <span className="text-fg-muted">{t(`kinds.${aliasKind(a)}`)}</span> },
    {
      header: t("columns.destination"),
      skeleton: "w-32",
      className: HIDE_SM,
      cellClassName: "max-w-64",
      cell: (a) => (
        <div className="flex flex-col gap-0.5">
          <Chips items={splitList(a.destination).map((d, i) => ({ key: `${i}`, label: d, plain: true, mono: true }))} empty={t("anyAddress")} />
          {(a.ports || a.protocols.length > 0) && (
            <span className="font-mono text-xs text-fg-muted">{[a.protocols.map(protocolName).join("/"), a.ports].filter(Boolean).join(" · ")}</span>
          )}
        </div>
      ),
    },
    {
      header: t("columns.rules"),
      skeleton: "w-24",
      className: HIDE_LG,
      cellClassName: "max-w-56",
      cell: (a) => <Chips items={ruleNamesOf(a).map((n) => ({ key: n, label: n }))} empty={t("unused")} />,
    },
    { header: t("columns.state"), skeleton: "w-16", cell: (a) => <AliasStateBadge alias={a} /> },
  ];

  const actions = (a: AclAlias): RowAction[] => {
    const isPending = aliasState(a) === "modified";
    const child = childOf.get(a.id);
    const used = ruleNamesOf(a);
    if (isPending) {
      return [
        { label: t("actions.edit"), icon: Pencil, testId: "alias-action-edit", onSelect: () => setEditing(a) },
        {
          label: t("actions.discard"),
          icon: Undo2,
          danger: true,
          separated: true,
          testId: "alias-action-discard",
          confirm: { title: t("discardTitle", { name: a.name }), description: t("discardDescription"), confirmLabel: t("actions.discard"), run: () => remove(a, true) },
        },
      ];
    }
    return [
      { label: child ? t("actions.editPending") : t("actions.edit"), icon: Pencil, testId: "alias-action-edit", onSelect: () => setEditing(child ?? a) },
      {
        label: t("actions.delete"),
        icon: Trash2,
        danger: true,
        separated: true,
        testId: "alias-action-delete",
        confirm: {
          title: t("deleteTitle", { name: a.name }),
          description: used.length ? t("deleteInUse", { count: used.length, rules: used.join(", ") }) : t("deleteDescription"),
          confirmLabel: t("actions.delete"),
          run: () => remove(a, false),
        },
      },
    ];
  };

  const loadError = aliases.isError
    ? { message: t("loadFailed"), detail: serverError(aliases.error), onRetry: () => void aliases.refetch(), retrying: aliases.isFetching }
    : null;
  const noMatch = {
    icon: SearchX,
    title: tc("noMatch", { q: filter.trim() }),
    action: (
      <Button variant="secondary" onClick={onClearFilter}>
        {tc("clearSearch")}
      </Button>
    ),
  };
  const deployIds = selectedIds.length ? selectedIds : pendingAll.map((a) => a.id);
  const editingRules = editing ? ruleNamesOf(all.find((a) => a.id === editing.parent_id) ?? editing) : [];

  return (
    <div className="flex flex-col gap-6">
      <section aria-labelledby="acl-pending-aliases" className="flex flex-col gap-3">
        <SectionTitle
          id="acl-pending-aliases"
          title={t("pendingTitle")}
          count={aliases.data ? pendingAll.length : undefined}
          description={t("pendingDescription")}
          action={
            <Button data-testid="aliases-deploy" disabled={pendingAll.length === 0} onClick={() => setDeploying(deployIds)}>
              <Rocket aria-hidden />
              {selectedIds.length
                ? t("deploySelected", { count: selectedIds.length })
                : pendingAll.length
                  ? t("deployAll", { count: pendingAll.length })
                  : t("nothingToDeploy")}
            </Button>
          }
        />
        <DataTable
          className="md:max-h-[50dvh]"
          testId="aliases-pending"
          columns={columns(true)}
          rows={aliases.data ? pending : undefined}
          rowKey={(a) => a.id}
          skeletonRows={2}
          error={loadError}
          empty={needle && pendingAll.length ? noMatch : { icon: Layers, title: t("pendingEmpty"), description: t("pendingEmptyHint") }}
          rowProps={(a) => ({ "data-testid": "alias-row", "data-alias": a.name, "data-state": aliasState(a) })}
          actions={{
            label: (a) => t("actions.open", { name: a.name }),
            columnLabel: t("columns.actions"),
            testId: (a) => `alias-actions-${a.name}`,
            busy: (a) => busy === a.id,
            items: actions,
          }}
        />
      </section>
      <section aria-labelledby="acl-deployed-aliases" className="flex flex-col gap-3">
        <SectionTitle
          id="acl-deployed-aliases"
          title={t("deployedTitle")}
          count={aliases.data ? all.length - pendingAll.length : undefined}
          description={t("deployedDescription")}
        />
        <DataTable
          className="md:max-h-[70dvh]"
          testId="aliases-deployed"
          columns={columns(false)}
          rows={aliases.data ? deployed : undefined}
          rowKey={(a) => a.id}
          skeletonRows={4}
          error={loadError}
          empty={
            needle && all.length - pendingAll.length > 0
              ? noMatch
              : {
                  icon: Layers,
                  title: t("empty"),
                  description: t("emptyHint"),
                  action: (
                    <Button variant="secondary" onClick={() => onCreatingChange(true)}>
                      <Plus aria-hidden />
                      {t("add")}
                    </Button>
                  ),
                }
          }
          rowProps={(a) => ({ "data-testid": "alias-row", "data-alias": a.name, "data-state": aliasState(a) })}
          actions={{
            label: (a) => t("actions.open", { name: a.name }),
            columnLabel: t("columns.actions"),
            testId: (a) => `alias-actions-${a.name}`,
            busy: (a) => busy === a.id,
            items: actions,
          }}
        />
      </section>

      <AliasDialog open={creating} onOpenChange={onCreatingChange} />
      <AliasDialog alias={editing ?? undefined} ruleNames={editingRules} open={editing !== null} onOpenChange={(o) => !o && setEditing(null)} />
      <DeployDialog
        kind="aliases"
        ids={deploying}
        names={(deploying ?? []).map((id) => all.find((a) => a.id === id)).filter((a): a is AclAlias => !!a).map((a) => ({ id: a.id, name: a.name, state: "modified" }))}
        onOpenChange={(o) => !o && setDeploying(null)}
        onDeployed={() => setSelected(new Set())}
      />
    </div>
  );
}
