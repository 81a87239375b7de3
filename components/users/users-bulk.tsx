"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Mail, Trash2, UserCheck, UserMinus, UserPlus, UserX } from "lucide-react";
import { api } from "@/lib/api/client";
import type { BulkResult, UserBulkAction, UserBulkFilter } from "@/lib/bulk/schema";
import { BulkBar, BulkConfirm, type BulkSelection } from "@/components/ui/bulk-selection";
import { Checkbox } from "@/components/ui/checkbox";
import { toast } from "@/components/ui/toaster";
import { groupNamesQuery, userKeys } from "./queries";
import { useServerError } from "./server-errors";

const ACTIONS: { key: UserBulkAction; icon: typeof Mail; danger?: boolean }[] = [
  { key: "enable", icon: UserCheck },
  { key: "disable", icon: UserX },
  { key: "add_to_groups", icon: UserPlus },
  { key: "remove_from_groups", icon: UserMinus },
  { key: "start_enrollment", icon: Mail },
  { key: "delete", icon: Trash2, danger: true },
];

/** Run a users bulk action: POST /user/bulk, a toast either way, the lists refetched either way. */
export function useRunUsersBulk() {
  const t = useTranslations("bulk");
  const errorText = useServerError();
  const queryClient = useQueryClient();
  return async (body: { action: UserBulkAction; groups?: string[] } & ({ ids: number[] } | { filter: UserBulkFilter })) => {
    try {
      const r = await api.post<BulkResult>("/user/bulk", body);
      toast.success(t(`users.done.${body.action}`, { count: r.changed }));
    } catch (err) {
      toast.error(t("failed"), { subMessage: errorText(err) });
      throw err;
    } finally {
      await queryClient.invalidateQueries({ queryKey: userKeys.all });
      await queryClient.invalidateQueries({ queryKey: ["report"] });
    }
  };
}

/**
 * The users list's bulk actions: the bar over the table and one confirmation per action (with
 * the groups to add to or remove from).
 */
export function UsersBulkBar({
  selection,
  total,
  actions = ACTIONS.map((a) => a.key),
}: {
  selection: BulkSelection<UserBulkFilter>;
  total: number | undefined;
  /** The actions offered (the stale-access report offers only some). */
  actions?: UserBulkAction[];
}) {
  const t = useTranslations("bulk");
  const run = useRunUsersBulk();
  const [action, setAction] = useState<UserBulkAction | null>(null);
  const [groups, setGroups] = useState<string[]>([]);
  const needsGroups = action === "add_to_groups" || action === "remove_from_groups";
  const groupNames = useQuery({ ...groupNamesQuery, enabled: needsGroups });
  const count = selection.count;

  return (
    <>
      <BulkBar
        selection={selection}
        total={total}
        actions={ACTIONS.filter((a) => actions.includes(a.key)).map((a) => ({ ...a, label: t(`users.${a.key}`) }))}
        onAction={(k) => {
          setGroups([]);
          setAction(k as UserBulkAction);
        }}
      />
      <BulkConfirm
        open={action !== null}
        onOpenChange={(o) => !o && setAction(null)}
        title={action ? t(`users.confirm.${action}.title`, { count }) : ""}
        description={action ? t(`users.confirm.${action}.description`, { count }) : ""}
        names={selection.labels()}
        confirmLabel={action ? t(`users.${action}`) : ""}
        danger={action === "delete" || action === "disable"}
        confirmDisabled={needsGroups && !groups.length}
        onConfirm={async () => {
          await run({ action: action!, ...selection.target(), ...(needsGroups ? { groups } : {}) });
          selection.clear();
        }}
      >
        {needsGroups && (
          <fieldset className="flex max-h-48 flex-col gap-2 overflow-y-auto" data-testid="bulk-groups">
            <legend className="mb-1 text-sm font-medium text-fg">{t("users.groups")}</legend>
            {(groupNames.data ?? []).map((g) => (
              <label key={g} className="flex items-center gap-2 text-sm">
                <Checkbox
                  checked={groups.includes(g)}
                  onCheckedChange={(c) => setGroups((gs) => (c ? [...gs, g] : gs.filter((x) => x !== g)))}
                  data-testid="bulk-group"
                  data-group={g}
                />
                {g}
              </label>
            ))}
          </fieldset>
        )}
      </BulkConfirm>
    </>
  );
}
