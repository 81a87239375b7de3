"use client";

import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { AlertTriangle } from "lucide-react";
import { api } from "@/lib/api/client";
import { aclAliasSchema, ALIAS_KINDS } from "@/lib/acl/schema";
import { useServerError } from "@/components/users/server-errors";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { useSubmit } from "@/components/ui/use-submit";
import { aliasKind, aliasState, refreshAcl, type AclAlias } from "./api";
import { DestinationFields } from "./protocols-field";

type FormIn = z.input<typeof aclAliasSchema>;
type FormOut = z.output<typeof aclAliasSchema>;

interface AliasDialogProps {
  /** The alias to edit; none for a new one. */
  alias?: AclAlias;
  /** Names of the rules that use the alias (edit only). */
  ruleNames?: string[];
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

const empty = (a?: AclAlias): FormIn => ({
  name: a?.name ?? "",
  kind: a ? aliasKind(a) : "destination",
  destination: a?.destination ?? "",
  ports: a?.ports ?? "",
  protocols: a?.protocols ?? [],
});

/**
 * Create or edit an alias. Changing an alias that deployed rules use asks first and names those
 * rules: the change stays pending until it is deployed.
 */
export function AliasDialog({ alias, ruleNames = [], open, onOpenChange }: AliasDialogProps) {
  const t = useTranslations("acl.aliases.dialog");
  const client = useQueryClient();
  const serverError = useServerError();
  const [confirming, setConfirming] = useState(false);
  const inUse = !!alias && ruleNames.length > 0 && aliasState(alias) === "applied";

  const form = useForm<FormIn, unknown, FormOut>({
    resolver: zodResolver(aclAliasSchema),
    mode: "onTouched",
    defaultValues: empty(alias),
  });

  useEffect(() => {
    if (open) {
      form.reset(empty(alias));
      setConfirming(false);
    }
  }, [open, alias, form]);

  const save = useSubmit(form, {
    mutationFn: (v) => (alias ? api.put(`/acl/alias/${alias.id}`, v) : api.post("/acl/alias", v)),
    success: (_r, v) => (alias ? (inUse ? t("savedPending", { name: v.name }) : t("saved", { name: v.name })) : t("created", { name: v.name })),
    onSuccess: async () => {
      onOpenChange(false);
      await refreshAcl(client);
    },
    errorText: serverError,
    failure: alias ? t("saveFailed") : t("createFailed"),
    fields: ["name", "kind", "destination", "ports", "protocols"],
    onError: () => setConfirming(false),
    // An alias in use: the first valid submit shows the rules it touches, the second sends.
    ready: () => {
      if (!inUse || confirming) return true;
      setConfirming(true);
      return false;
    },
  });
  const { errorOf } = save;

  return (
    <Dialog open={open} onOpenChange={(next) => !save.pending && onOpenChange(next)}>
      <DialogContent
        data-testid="alias-dialog"
        title={alias ? t("editTitle", { name: alias.name }) : t("createTitle")}
        description={t("description")}
        className="max-w-lg"
      >
        <form noValidate onSubmit={save.onSubmit} className="flex flex-col gap-4">
          <Field label={t("name")} error={errorOf("name")}>
            <Input data-testid="alias-name" autoComplete="off" autoFocus {...form.register("name")} />
          </Field>
          <Field label={t("kind")} error={errorOf("kind")} hint={t(`kindHints.${form.watch("kind") ?? "destination"}`)}>
            <Controller
              control={form.control}
              name="kind"
              render={({ field }) => (
                <Select value={field.value ?? "destination"} onValueChange={field.onChange}>
                  <SelectTrigger data-testid="alias-kind" onBlur={field.onBlur}>
                    <SelectValue />
                  </SelectTrigger>
                  <SelectContent>
                    {ALIAS_KINDS.map((k) => (
                      <SelectItem key={k} value={k} data-testid={`alias-kind-${k}`}>
                        {t(`kinds.${k}`)}
                      </SelectItem>
                    ))}
                  </SelectContent>
                </Select>
              )}
            />
          </Field>
          <DestinationFields form={form} errorOf={errorOf} t={t} testIdPrefix="alias" />
          {confirming && (
            <div role="alert" className="flex gap-3 rounded-md border border-warning/40 bg-warning-subtle p-3 text-sm" data-testid="alias-in-use">
              <AlertTriangle className="mt-0.5 size-4 shrink-0 text-warning" aria-hidden />
              <div className="min-w-0">
                <p className="font-medium text-fg">{t("inUseTitle", { count: ruleNames.length })}</p>
                <p className="mt-1 text-fg-muted">{t("inUseDescription")}</p>
                <ul className="mt-2 flex flex-wrap gap-1">
                  {ruleNames.map((n) => (
                    <li key={n} className="rounded-sm bg-surface px-1.5 py-0.5 text-xs ring-1 ring-inset ring-border">
                      {n}
                    </li>
                  ))}
                </ul>
                <Button type="button" variant="ghost" size="sm" className="mt-2 -ml-2" onClick={() => setConfirming(false)}>
                  {t("backToEdit")}
                </Button>
              </div>
            </div>
          )}
          <DialogFormFooter
            submitLabel={alias ? (confirming ? t("confirmSave") : t("save")) : t("create")}
            pending={save.pending}
            submitTestId="alias-submit"
          />
        </form>
      </DialogContent>
    </Dialog>
  );
}
