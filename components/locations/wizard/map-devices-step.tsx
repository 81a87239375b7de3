"use client";

import { useState } from "react";
import { Controller, useFieldArray, useForm, useWatch, type FieldErrors } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { z } from "zod";
import { AlertCircle, Trash2 } from "lucide-react";
import { ApiBadRequestError, api } from "@/lib/api/client";
import { mapDevicesFormSchema } from "@/lib/locations/schema";
import { bareMessage, useApiErrorText } from "@/components/devices/errors";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Input } from "@/components/ui/input";
import { Tooltip } from "@/components/ui/tooltip";
import { useSubmit } from "@/components/ui/use-submit";
import type { ImportedPeer, Location } from "../api";
import { UserPicker } from "./user-picker";

type FormIn = z.input<typeof mapDevicesFormSchema>;
type FormOut = z.output<typeof mapDevicesFormSchema>;

/** The row fields, named as the route names them, so a 400 on `devices.N.field` lands on its cell. */
const ROW_FIELDS = ["name", "wireguard_pubkey", "wireguard_ips", "user_id"] as const;

/** "fill in marked fields" for missing input, "invalid address" for addresses the server refused. */
type Problem = "fillMarked" | "invalidAddress" | "keyInvalid";

const GRID = "md:grid-cols-[minmax(0,1fr)_minmax(0,0.9fr)_minmax(0,1fr)_minmax(0,1.2fr)_2rem]";

interface MapDevicesStepProps {
  location: Location;
  peers: ImportedPeer[];
  onDone: (count: number) => void;
}

/**
 * Map imported peers to users: name and addresses editable, a user for each
 * (POST /network/{id}/devices). One form: the rows are a field array checked by the route's row
 * schema, sent through the shared submit hook; a refused row is marked where the server names it.
 */
export function MapDevicesStep({ location, peers, onDone }: MapDevicesStepProps) {
  const t = useTranslations("wizard.map");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const form = useForm<FormIn, unknown, FormOut>({
    resolver: zodResolver(mapDevicesFormSchema),
    defaultValues: {
      devices: peers.map((p) => ({ name: p.name, wireguard_pubkey: p.wireguard_pubkey, wireguard_ips: p.wireguard_ips.join(", "), user_id: null })),
    },
  });
  const rows = useFieldArray({ control: form.control, name: "devices" });
  const values = useWatch({ control: form.control, name: "devices" });
  // What the server refused: the kind of row problem, or its sentence when it named no row.
  const [refused, setRefused] = useState<{ problem: Problem } | { detail: string } | null>(null);

  const rowOf = (err: unknown) => (err instanceof ApiBadRequestError ? /^devices\.(\d+)\./.exec(err.field ?? "") : null);
  const submit = useSubmit(form, {
    mutationFn: (body: FormOut) => api.post(`/network/${location.id}/devices`, body),
    success: (_, body) => t("saved", { count: body.devices.length }),
    onSuccess: (_, body) => {
      void queryClient.invalidateQueries({ queryKey: ["devices"] });
      void queryClient.invalidateQueries({ queryKey: ["user"] });
      onDone(body.devices.length);
    },
    failure: t("failed"),
    fields: rows.fields.flatMap((_, i) => ROW_FIELDS.map((f) => `devices.${i}.${f}`)),
    toastFieldErrors: true,
    errorText: (err) => {
      const row = rowOf(err);
      if (!row) return errorText(err);
      const bare = bareMessage(err as ApiBadRequestError);
      const problem: Problem = bare.startsWith("invalid address") ? "invalidAddress" : bare.startsWith("key is invalid") ? "keyInvalid" : "fillMarked";
      return t("rowProblem", { index: Number(row[1]) + 1, problem: t(`problems.${problem}`) });
    },
    onError: (err) => {
      const bare = err instanceof ApiBadRequestError ? bareMessage(err) : "";
      if (rowOf(err))
        setRefused({ problem: bare.startsWith("invalid address") ? "invalidAddress" : bare.startsWith("key is invalid") ? "keyInvalid" : "fillMarked" });
      else setRefused({ detail: errorText(err) });
    },
    onAttempt: () => setRefused(null),
    // No rows left: nothing to import, the wizard ends.
    ready: (body) => {
      if (body.devices.length > 0) return true;
      onDone(0);
      return false;
    },
  });

  const rowErrors = (form.formState.errors.devices ?? []) as (FieldErrors<FormIn["devices"][number]> | undefined)[];
  const invalid = (i: number, f: (typeof ROW_FIELDS)[number]) => !!rowErrors[i]?.[f];
  const anyRowInvalid = rows.fields.some((_, i) => ROW_FIELDS.some((f) => invalid(i, f)));
  const alert = refused && "detail" in refused ? refused.detail : refused ? t(`problems.${refused.problem}`) : anyRowInvalid ? t("problems.fillMarked") : null;
  const mapped = (values ?? []).filter((r) => r.user_id).length;
  return (
    <form noValidate onSubmit={submit.onSubmit} className="flex flex-col gap-4">
      <Card>
        <CardHeader
          title={t("title", { location: location.name })}
          description={t("description")}
          action={<span className="text-xs text-fg-muted tabular-nums">{t("progress", { mapped, total: rows.fields.length })}</span>}
        />
        {alert && (
          <div role="alert" data-testid="map-error" className="mx-4 mt-4 flex items-start gap-2 rounded-md border border-error/30 bg-error-subtle px-3 py-2 text-sm">
            <AlertCircle className="mt-0.5 size-4 shrink-0 text-error" aria-hidden />
            <span className="font-medium text-fg first-letter:uppercase">{alert}</span>
          </div>
        )}
        {rows.fields.length === 0 ? (
          <p className="px-4 py-8 text-center text-sm text-fg-muted">{t("allRemoved")}</p>
        ) : (
          <div className="p-4">
            <div className={cn("hidden gap-3 px-1 pb-2 text-xs font-medium text-fg-muted md:grid", GRID)} aria-hidden>
              <span>{t("name")}</span>
              <span>{t("publicKey")}</span>
              <span>{t("ips")}</span>
              <span>{t("user.label")}</span>
              <span />
            </div>
            <ul className="flex flex-col gap-3 md:gap-2">
              {rows.fields.map((r, i) => {
                const bad = ROW_FIELDS.some((f) => invalid(i, f));
                return (
                  <li
                    key={r.id}
                    data-testid="map-row"
                    data-invalid={bad || undefined}
                    className={cn(
                      "grid grid-cols-1 items-center gap-2 rounded-md border p-3 md:gap-3 md:border-0 md:p-1",
                      GRID,
                      bad ? "border-error/40 bg-error-subtle/40 md:bg-error-subtle/30" : "border-border",
                    )}
                  >
                    <Input
                      aria-label={t("nameOf", { index: i + 1 })}
                      aria-invalid={invalid(i, "name") || undefined}
                      {...form.register(`devices.${i}.name`)}
                      data-testid="map-name"
                    />
                    <Tooltip content={<span className="break-all font-mono">{r.wireguard_pubkey}</span>}>
                      <span
                        tabIndex={0}
                        aria-label={t("keyOf", { index: i + 1, key: r.wireguard_pubkey })}
                        className={cn(
                          "truncate rounded-sm font-mono text-xs text-fg-muted focus-visible:outline-2",
                          invalid(i, "wireguard_pubkey") && "text-error",
                        )}
                      >
                        {r.wireguard_pubkey}
                      </span>
                    </Tooltip>
                    <Input
                      aria-label={t("ipsOf", { index: i + 1 })}
                      aria-invalid={invalid(i, "wireguard_ips") || undefined}
                      className="font-mono text-xs"
                      spellCheck={false}
                      {...form.register(`devices.${i}.wireguard_ips`)}
                      data-testid="map-ips"
                    />
                    <Controller
                      control={form.control}
                      name={`devices.${i}.user_id`}
                      render={({ field, fieldState }) => (
                        <UserPicker
                          aria-label={t("userOf", { index: i + 1 })}
                          value={field.value as { id: number; username: string } | null}
                          invalid={!!fieldState.error}
                          onChange={field.onChange}
                          data-testid="map-user"
                        />
                      )}
                    />
                    <Tooltip content={t("remove")}>
                      <Button
                        type="button"
                        variant="ghost"
                        size="icon"
                        aria-label={t("removeOf", { index: i + 1 })}
                        onClick={() => rows.remove(i)}
                        className="justify-self-end"
                      >
                        <Trash2 aria-hidden />
                      </Button>
                    </Tooltip>
                  </li>
                );
              })}
            </ul>
          </div>
        )}
      </Card>
      <div className="flex justify-end gap-2">
        <Button type="submit" loading={submit.pending} data-testid="map-submit">
          {rows.fields.length === 0 ? t("finish") : t("submit", { count: rows.fields.length })}
        </Button>
      </div>
    </form>
  );
}
