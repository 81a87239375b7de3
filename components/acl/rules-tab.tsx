"use client";

import { useMemo, useState } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { useQueryClient } from "@tanstack/react-query";
import { Ban, CircleCheck, ListChecks, Pencil, Plus, Rocket, SearchX, ShieldCheck, Trash2, Undo2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { parseExpires } from "@/lib/acl/schema";
import { formatDateInput } from "@/components/ui/date-picker";
import { useServerError } from "@/components/users/server-errors";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { DataTable, type DataColumn, type RowAction } from "@/components/ui/data-table";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { useUrlState } from "@/components/users/url-state";
import { toast } from "@/components/ui/toaster";
import { isPendingRule, protocolName, refreshAcl, ruleState, useRules, type AclRule } from "./api";
import { Chips } from "./chips";
import type { AclContext } from "./context";
import { DeployDialog } from "./deploy-dialog";
import { allowedChips, deniedChips, destinationChips, locationChips, ruleSearchText, type RuleLabels } from "./rule-cells";
import { ruleBody } from "./rule-body";
import { SectionTitle } from "./section-title";
import { RuleStateBadge } from "./state-badge";

const HIDE_SM = "hidden md:table-cell";
const HIDE_LG = "hidden lg:table-cell";
const HIDE_XL = "hidden xl:table-cell";

export function useRuleLabels(): RuleLabels {
  const t = useTranslations("acl.rules");
  return useMemo(
    () => ({ allUsers: t("allUsers"), allDevices: t("allDevices"), allLocations: t("allLocations"), anyDestination: t("anyDestination") }),
    [t],
  );
}

/** The state filter: the badge a rule shows (a deployed rule is applied, disabled or expired). */
const STATE_FILTERS = ["new", "modified", "deleted", "applied", "disabled", "expired"] as const;
type StateFilter = (typeof STATE_FILTERS)[number];
const badgeState = (r: AclRule): StateFilter => {
  const s = ruleState(r);
  return s === "applied" && !r.enabled ? "disabled" : s;
};
const ANY = "any";

/** Rules: pending changes (selectable, deployable, discardable) above the deployed rules. */
export function RulesTab({ ctx, filter, onClearFilter }: { ctx: AclContext; filter: string; onClearFilter: () => void }) {
  const t = useTranslations("acl.rules");
  const tc = useTranslations("acl");
  const router = useRouter();
  const client = useQueryClient();
  const serverError = useServerError();
  const rules = useRules();
  const labels = useRuleLabels();
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [deploying, setDeploying] = useState<number[] | null>(null);
  const [busy, setBusy] = useState<number | null>(null);

  const ts = useTranslations("acl.state");
  const { params, set } = useUrlState();
  // Filters (kept in the address): a location (rules for all locations included), an alias, a state.
  const [byLocation, setByLocation] = useState(() => Number(params.get("location")) || null);
  const [byAlias, setByAlias] = useState(() => Number(params.get("alias")) || null);
  const [byState, setByState] = useState<StateFilter | null>(() => {
    const v = params.get("state");
    return (STATE_FILTERS as readonly string[]).includes(v ?? "") ? (v as StateFilter) : null;
  });
  const filtersOn = byLocation !== null || byAlias !== null || byState !== null;
  const clearFilters = () => {
    setByLocation(null);
    setByAlias(null);
    setByState(null);
    set({ location: null, alias: null, state: null });
  };

  const all = useMemo(() => rules.data ?? [], [rules.data]);
  const needle = filter.trim().toLowerCase();
  const matches = useMemo(
    () =>
      all.filter(
        (r) =>
          (!needle || ruleSearchText(r, ctx.maps, labels).includes(needle)) &&
          (byLocation === null || r.all_networks || r.networks.includes(byLocation)) &&
          (byAlias === null || r.aliases.includes(byAlias)) &&
          (byState === null || badgeState(r) === byState),
      ),
    [all, needle, ctx.maps, labels, byLocation, byAlias, byState],
  );
  const narrowed = needle !== "" || filtersOn;
  const byName = (a: AclRule, b: AclRule) => a.name.localeCompare(b.name) || a.id - b.id;
  const pendingAll = useMemo(() => all.filter(isPendingRule), [all]);
  const pending = useMemo(() => matches.filter(isPendingRule).sort(byName), [matches]);
  const deployed = useMemo(() => matches.filter((r) => !isPendingRule(r)).sort(byName), [matches]);
  /** An applied rule's pending change (edit or deletion), if any. */
  const childOf = useMemo(() => {
    const m = new Map<number, AclRule>();
    for (const r of pendingAll) if (r.parent_id) m.set(r.parent_id, r);
    return m;
  }, [pendingAll]);

  // Only rules still pending stay selected.
  const selectedIds = pendingAll.filter((r) => selected.has(r.id)).map((r) => r.id);
  const toggle = (id: number, on: boolean) =>
    setSelected((s) => {
      const n = new Set(s);
      if (on) n.add(id);
      else n.delete(id);
      return n;
    });
  const allShownSelected = pending.length > 0 && pending.every((r) => selected.has(r.id));
  const someShownSelected = pending.some((r) => selected.has(r.id));

  async function run(rule: AclRule, call: () => Promise<unknown>, ok: string, failed: string) {
    setBusy(rule.id);
    try {
      await call();
      toast.success(ok);
      await refreshAcl(client);
    } catch (err) {
      toast.error(failed, { subMessage: serverError(err) });
      throw err;
    } finally {
      setBusy(null);
    }
  }

  const discard = (r: AclRule) =>
    run(r, () => api.delete(`/acl/rule/${r.id}`), t("discarded", { name: r.name }), t("discardFailed"));
  const markDeleted = (r: AclRule) =>
    run(r, () => api.delete(`/acl/rule/${r.id}`), t("markedDeleted", { name: r.name }), t("deleteFailed"));
  const setEnabled = (r: AclRule, enabled: boolean) =>
    run(
      r,
      () => api.put(`/acl/rule/${r.id}`, { ...ruleBody(r), enabled }),
      enabled ? t("enabledPending", { name: r.name }) : t("disabledPending", { name: r.name }),
      t("changeFailed"),
    ).catch(() => undefined);

  const cells: DataColumn<AclRule>[] = [
    {
      header: t("columns.destination"),
      skeleton: "w-32",
      className: HIDE_SM,
      cellClassName: "max-w-64",
      cell: (r) => (
        <div className="flex flex-col gap-0.5">
          <Chips items={destinationChips(r, ctx.maps, labels)} />
          {(r.ports || r.protocols.length > 0) && (
            <span className="font-mono text-xs text-fg-muted">
              {[r.protocols.map(protocolName).join("/"), r.ports].filter(Boolean).join(" · ")}
            </span>
          )}
        </div>
      ),
    },
    { header: t("columns.allowed"), skeleton: "w-24", className: HIDE_LG, cellClassName: "max-w-56", cell: (r) => <Chips items={allowedChips(r, ctx.maps, labels)} /> },
    { header: t("columns.denied"), skeleton: "w-24", className: HIDE_XL, cellClassName: "max-w-56", cell: (r) => <Chips items={deniedChips(r, ctx.maps, labels)} empty={t("nobody")} /> },
    { header: t("columns.locations"), skeleton: "w-24", className: HIDE_LG, cellClassName: "max-w-48", cell: (r) => <Chips items={locationChips(r, ctx.maps, labels)} /> },
    { header: t("columns.state"), skeleton: "w-16", cell: (r) => <RuleStateBadge rule={r} /> },
  ];
  const nameColumn = (pendingList: boolean): DataColumn<AclRule> => ({
    header: t("columns.name"),
    skeleton: "w-32",
    cellClassName: "max-w-0 w-full md:w-[22%] md:max-w-56",
    cell: (r) => {
      const child = pendingList ? undefined : childOf.get(r.id);
      const s = ruleState(r);
      return (
        <div className="min-w-0">
          {s === "deleted" ? (
            <span className="block truncate font-medium text-fg line-through decoration-fg-subtle">{r.name}</span>
          ) : (
            <Link href={`/acl/rules/${child?.id ?? r.id}`} className="block truncate font-medium text-fg hover:underline focus-visible:outline-2">
              {r.name}
            </Link>
          )}
          {child && <p className="text-xs text-warning">{t("hasPendingChange")}</p>}
          {r.expires && (
            <p className="text-xs text-fg-muted" data-testid="rule-expires">
              {t(s === "expired" ? "expiredOn" : "expiresOn", { date: formatDateInput(parseExpires(r.expires) ?? new Date(r.expires), true) })}
            </p>
          )}
        </div>
      );
    },
  });

  const selectColumn: DataColumn<AclRule> = {
    header: (
      <Checkbox
        aria-label={t("selectAll")}
        data-testid="rules-select-all"
        checked={allShownSelected ? true : someShownSelected ? "indeterminate" : false}
        onCheckedChange={(v) => setSelected(v === true ? new Set([...selected, ...pending.map((r) => r.id)]) : new Set())}
      />
    ),
    skeleton: "w-4",
    className: "w-8 pr-0",
    cell: (r) => (
      <Checkbox
        aria-label={t("select", { name: r.name })}
        data-testid="rule-select"
        checked={selected.has(r.id)}
        onCheckedChange={(v) => toggle(r.id, v === true)}
      />
    ),
  };

  const pendingActions = (r: AclRule): RowAction[] => {
    const s = ruleState(r);
    return [
      ...(s === "deleted" ? [] : [{ label: t("actions.edit"), icon: Pencil, testId: "rule-action-edit", onSelect: () => router.push(`/acl/rules/${r.id}`) }]),
      {
        label: t("actions.discard"),
        icon: Undo2,
        danger: true,
        separated: s !== "deleted",
        testId: "rule-action-discard",
        confirm: {
          title: t("discardTitle", { name: r.name }),
          description: s === "new" ? t("discardNew") : s === "deleted" ? t("discardDeletion") : t("discardModified"),
          confirmLabel: t("actions.discard"),
          run: () => discard(r),
        },
      },
    ];
  };

  const deployedActions = (r: AclRule): RowAction[] => {
    const child = childOf.get(r.id);
    if (child) {
      return [
        ruleState(child) === "deleted"
          ? { label: t("actions.keep"), icon: Undo2, testId: "rule-action-keep", onSelect: () => void discard(child).catch(() => undefined) }
          : { label: t("actions.editPending"), icon: Pencil, testId: "rule-action-edit", onSelect: () => router.push(`/acl/rules/${child.id}`) },
      ];
    }
    const expired = ruleState(r) === "expired";
    return [
      { label: t("actions.edit"), icon: Pencil, testId: "rule-action-edit", onSelect: () => router.push(`/acl/rules/${r.id}`) },
      ...(expired
        ? []
        : [
            r.enabled
              ? { label: t("actions.disable"), icon: Ban, testId: "rule-action-disable", onSelect: () => void setEnabled(r, false) }
              : { label: t("actions.enable"), icon: CircleCheck, testId: "rule-action-enable", onSelect: () => void setEnabled(r, true) },
          ]),
      {
        label: t("actions.delete"),
        icon: Trash2,
        danger: true,
        separated: true,
        testId: "rule-action-delete",
        confirm: {
          title: t("deleteTitle", { name: r.name }),
          description: t("deleteDescription"),
          confirmLabel: t("actions.delete"),
          run: () => markDeleted(r),
        },
      },
    ];
  };

  const loadError = rules.isError
    ? { message: t("loadFailed"), detail: serverError(rules.error), onRetry: () => void rules.refetch(), retrying: rules.isFetching }
    : ctx.isError
      ? { message: t("contextFailed"), detail: serverError(ctx.error), onRetry: ctx.retry }
      : null;
  const rows = (list: AclRule[]) => (rules.data && ctx.ready ? list : undefined);
  const noMatch = {
    icon: SearchX,
    title: needle ? tc("noMatch", { q: filter.trim() }) : t("filters.noMatch"),
    action: (
      <Button
        variant="secondary"
        onClick={() => {
          onClearFilter();
          clearFilters();
        }}
      >
        {filtersOn ? t("filters.clear") : tc("clearSearch")}
      </Button>
    ),
  };
  const filterSelect = (
    param: "location" | "alias" | "state",
    label: string,
    value: string | null,
    options: { value: string; label: string }[],
    onChange: (v: string | null) => void,
  ) => (
    <Select
      value={value ?? ANY}
      onValueChange={(v) => {
        const next = v === ANY ? null : v;
        onChange(next);
        set({ [param]: next });
      }}
    >
      <SelectTrigger className="h-8 w-auto min-w-36 max-w-56 text-sm" aria-label={label} data-testid={`rules-filter-${param}`}>
        <SelectValue />
      </SelectTrigger>
      <SelectContent>
        <SelectItem value={ANY}>{label}</SelectItem>
        {options.map((o) => (
          <SelectItem key={o.value} value={o.value}>
            {o.label}
          </SelectItem>
        ))}
      </SelectContent>
    </Select>
  );

  const deployIds = selectedIds.length ? selectedIds : pendingAll.map((r) => r.id);
  const deployLabel = selectedIds.length
    ? t("deploySelected", { count: selectedIds.length })
    : pendingAll.length
      ? t("deployAll", { count: pendingAll.length })
      : t("nothingToDeploy");

  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-center gap-2" role="group" aria-label={t("filters.label")} data-testid="rules-filters">
        {filterSelect(
          "location",
          t("filters.anyLocation"),
          byLocation === null ? null : String(byLocation),
          ctx.locations.map((l) => ({ value: String(l.id), label: l.name })),
          (v) => setByLocation(v === null ? null : Number(v)),
        )}
        {filterSelect(
          "alias",
          t("filters.anyAlias"),
          byAlias === null ? null : String(byAlias),
          ctx.aliases.filter((a) => !a.parent_id).map((a) => ({ value: String(a.id), label: a.name })),
          (v) => setByAlias(v === null ? null : Number(v)),
        )}
        {filterSelect(
          "state",
          t("filters.anyState"),
          byState,
          STATE_FILTERS.map((v) => ({ value: v, label: ts(v) })),
          (v) => setByState(v as StateFilter | null),
        )}
        {filtersOn && (
          <Button variant="ghost" size="sm" onClick={clearFilters} data-testid="rules-filters-clear">
            {t("filters.clear")}
          </Button>
        )}
      </div>
      <section aria-labelledby="acl-pending-rules" className="flex flex-col gap-3">
        <SectionTitle
          id="acl-pending-rules"
          title={t("pendingTitle")}
          count={rules.data ? pendingAll.length : undefined}
          description={t("pendingDescription")}
          action={
            <Button
              data-testid="rules-deploy"
              disabled={pendingAll.length === 0}
              onClick={() => setDeploying(deployIds)}
            >
              <Rocket aria-hidden />
              {deployLabel}
            </Button>
          }
        />
        <DataTable
          className="md:max-h-[calc(50dvh)]"
          testId="rules-pending"
          columns={[selectColumn, nameColumn(true), ...cells]}
          rows={rows(pending)}
          rowKey={(r) => r.id}
          skeletonRows={2}
          error={loadError}
          empty={
            narrowed && pendingAll.length
              ? noMatch
              : { icon: ListChecks, title: t("pendingEmpty"), description: t("pendingEmptyHint") }
          }
          rowProps={(r) => ({ "data-testid": "rule-row", "data-rule": r.name, "data-state": ruleState(r) })}
          actions={{
            label: (r) => t("actions.open", { name: r.name }),
            columnLabel: t("columns.actions"),
            testId: (r) => `rule-actions-${r.name}`,
            busy: (r) => busy === r.id,
            items: pendingActions,
          }}
        />
      </section>

      <section aria-labelledby="acl-deployed-rules" className="flex flex-col gap-3">
        <SectionTitle id="acl-deployed-rules" title={t("deployedTitle")} count={rules.data ? all.length - pendingAll.length : undefined} description={t("deployedDescription")} />
        <DataTable
          className="md:max-h-[calc(70dvh)]"
          testId="rules-deployed"
          columns={[nameColumn(false), ...cells]}
          rows={rows(deployed)}
          rowKey={(r) => r.id}
          skeletonRows={4}
          error={loadError}
          empty={
            narrowed && all.length - pendingAll.length > 0
              ? noMatch
              : {
                  icon: ShieldCheck,
                  title: t("deployedEmpty"),
                  description: t("deployedEmptyHint"),
                  action: (
                    <Button asChild variant="secondary">
                      <Link href="/acl/rules/new">
                        <Plus aria-hidden />
                        {t("add")}
                      </Link>
                    </Button>
                  ),
                }
          }
          rowProps={(r) => ({ "data-testid": "rule-row", "data-rule": r.name, "data-state": ruleState(r) })}
          actions={{
            label: (r) => t("actions.open", { name: r.name }),
            columnLabel: t("columns.actions"),
            testId: (r) => `rule-actions-${r.name}`,
            busy: (r) => busy === r.id,
            items: deployedActions,
          }}
        />
      </section>

      <DeployDialog
        kind="rules"
        ids={deploying}
        names={(deploying ?? []).map((id) => all.find((r) => r.id === id)).filter((r): r is AclRule => !!r).map((r) => ({ id: r.id, name: r.name, state: ruleState(r) }))}
        onOpenChange={(o) => !o && setDeploying(null)}
        onDeployed={() => setSelected(new Set())}
      />
    </div>
  );
}
