"use client";

import { useEffect, useMemo, useState } from "react";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { ShieldCheck } from "lucide-react";
import { api } from "@/lib/api/client";
import { groupSchema } from "@/lib/groups/schema";
import { displayName } from "@/components/shell/user-avatar";
import { Dialog, DialogContent, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { MultiSelect } from "@/components/ui/multi-select";
import { Switch } from "@/components/ui/switch";
import { useSubmit } from "@/components/ui/use-submit";
import { useDebouncedValue } from "@/components/ui/use-debounced-value";
import { useMultiSelectLabels } from "@/components/users/labels";
import { useUserSearch } from "@/components/users/queries";
import { useServerError } from "@/components/users/server-errors";
import { groupPath, refreshAfterGroupChange, type GroupInfo } from "./queries";

type FormInput = z.input<typeof groupSchema>;
type FormOutput = z.output<typeof groupSchema>;

interface GroupDialogProps {
  /** The group to edit; none for a new group. */
  group?: GroupInfo;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** Members are picked from a server search over the users (never the whole list). */
function MembersPicker({ value, onChange }: { value: string[]; onChange: (v: string[]) => void }) {
  const t = useTranslations("groups.dialog");
  const labels = useMultiSelectLabels("groups");
  const [query, setQuery] = useState("");
  const search = useDebouncedValue(query.trim(), 250);
  const users = useUserSearch(search);
  const options = useMemo(
    () =>
      (users.data?.data ?? []).map((u) => ({
        value: u.username,
        label: displayName(u),
        description: u.username === displayName(u) ? u.email : `${u.username} · ${u.email}`,
      })),
    [users.data],
  );
  return (
    <MultiSelect
      data-testid="group-members"
      value={value}
      onChange={onChange}
      options={options}
      onSearchChange={setQuery}
      // Still debouncing counts as searching: the options shown are the previous query's.
      loading={users.isFetching || query.trim() !== search}
      placeholder={t("membersPlaceholder")}
      labels={labels}
      chipLabel={(username) => username}
      maxChips={16}
    />
  );
}

/** Create a group, or edit one: rename (members stay), admin flag, members. */
export function GroupDialog({ group, open, onOpenChange }: GroupDialogProps) {
  const t = useTranslations("groups.dialog");
  const client = useQueryClient();
  const serverError = useServerError();

  const form = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(groupSchema),
    mode: "onTouched",
    defaultValues: { name: "", members: [], is_admin: false },
  });

  useEffect(() => {
    if (open) form.reset({ name: group?.name ?? "", members: group?.members ?? [], is_admin: group?.is_admin ?? false });
  }, [open, group, form]);

  const save = useSubmit(form, {
    mutationFn: (v) => (group ? api.put(groupPath(group.name), v) : api.post("/group", v)),
    success: (_d, v) => (group ? t("saved", { name: v.name }) : t("created", { name: v.name })),
    onSuccess: async () => {
      onOpenChange(false);
      await refreshAfterGroupChange(client);
    },
    errorText: serverError,
    failure: group ? t("saveFailed") : t("createFailed"),
    fields: ["name", "members"],
  });
  const { errorOf } = save;

  return (
    <Dialog open={open} onOpenChange={(next) => !save.pending && onOpenChange(next)}>
      <DialogContent
        data-testid="group-dialog"
        title={group ? t("editTitle", { name: group.name }) : t("createTitle")}
        description={group ? t("editDescription") : t("createDescription")}
        className="max-w-lg"
      >
        <form noValidate onSubmit={save.onSubmit} className="flex flex-col gap-4">
          <Field label={t("name")} error={errorOf("name")} hint={group ? t("renameHint") : undefined}>
            <Input data-testid="group-name" autoComplete="off" autoFocus {...form.register("name")} />
          </Field>
          <Controller
            control={form.control}
            name="is_admin"
            render={({ field }) => (
              <div className="flex items-start justify-between gap-4 rounded-md border border-border p-3">
                <div className="min-w-0">
                  <label htmlFor="group-admin" className="flex items-center gap-1.5 text-sm font-medium text-fg">
                    <ShieldCheck className="size-4 text-accent" aria-hidden />
                    {t("admin")}
                  </label>
                  <p className="text-xs text-fg-muted">{t("adminHint")}</p>
                </div>
                <Switch id="group-admin" data-testid="group-admin" checked={field.value ?? false} onCheckedChange={field.onChange} />
              </div>
            )}
          />
          <Field label={t("members")} error={errorOf("members")} hint={t("membersHint")}>
            <Controller
              control={form.control}
              name="members"
              render={({ field }) => <MembersPicker value={field.value ?? []} onChange={field.onChange} />}
            />
          </Field>
          <DialogFormFooter submitLabel={group ? t("save") : t("create")} pending={save.pending} submitTestId="group-submit" />
        </form>
      </DialogContent>
    </Dialog>
  );
}
