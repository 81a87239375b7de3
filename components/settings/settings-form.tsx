"use client";

import { useEffect, useRef, type ReactNode } from "react";
import type { FieldValues, UseFormReturn } from "react-hook-form";
import { useQueryClient } from "@tanstack/react-query";
import { api } from "@/lib/api/client";
import { Button } from "@/components/ui/button";
import { Switch } from "@/components/ui/switch";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";
import { settingsQuery, type SettingsView, type SettingsViewBody } from "./queries";

interface SettingsSaveOptions<TIn, TOut> {
  /** The form's values from the stored settings (after a save, a refetch or a discard). */
  valuesOf: (s: SettingsView) => TIn;
  /** The PATCH /settings body (default: the parsed values). */
  patch?: (v: TOut) => unknown;
  /** Fields a 400 `{msg, field}` may land on (default: every field of the form). */
  fields?: readonly string[];
  saved: string;
  saveFailed: string;
  /** After the stored settings are updated (may return a promise: the save stays in progress). */
  onSaved?: () => unknown;
}

/**
 * A settings tab's save: PATCH /settings through the shared submit hook, the stored settings
 * replaced by the answer and the form reset to them; fresh settings from the server replace an
 * untouched form.
 */
export function useSettingsSave<TIn extends FieldValues, TOut>(
  form: UseFormReturn<TIn, unknown, TOut>,
  settings: SettingsView,
  options: SettingsSaveOptions<TIn, TOut>,
) {
  const client = useQueryClient();
  const serverError = useServerError();
  const opts = useRef(options);
  opts.current = options;

  useEffect(() => {
    if (!form.formState.isDirty) form.reset(opts.current.valuesOf(settings));
  }, [settings, form]);

  const save = useSubmit(form, {
    mutationFn: (v) => api.patch<SettingsViewBody>("/settings", options.patch ? options.patch(v) : v),
    success: () => options.saved,
    onSuccess: (saved) => {
      client.setQueryData(settingsQuery.queryKey, saved);
      form.reset(options.valuesOf(saved as SettingsView));
      return options.onSaved?.();
    },
    errorText: serverError,
    failure: options.saveFailed,
    fields: options.fields,
  });
  return { ...save, discard: () => form.reset(options.valuesOf(settings)) };
}

/** The sticky Discard / Save bar under a settings tab. */
export function SettingsSaveBar({
  save: { pending: saving, discard: onDiscard },
  dirty,
  labels: [discardLabel, saveLabel],
  saveTestId,
}: {
  save: { pending: boolean; discard: () => void };
  dirty: boolean;
  /** Discard, Save. */
  labels: [string, string];
  saveTestId: string;
}) {
  return (
    <div className="sticky bottom-0 z-10 -mx-1 flex flex-col-reverse gap-2 bg-canvas/90 px-1 py-3 backdrop-blur sm:flex-row sm:justify-end">
      <Button variant="secondary" disabled={!dirty || saving} onClick={onDiscard}>
        {discardLabel}
      </Button>
      <Button type="submit" loading={saving} disabled={!dirty} data-testid={saveTestId}>
        {saveLabel}
      </Button>
    </div>
  );
}

/** One on/off setting: its label and hint, and the switch (the id is also its test id). */
export function SettingSwitch({
  id,
  label,
  hint,
  checked,
  disabled,
  onChange,
  children,
}: {
  id: string;
  label: string;
  hint: string;
  checked: boolean;
  disabled?: boolean;
  onChange: (v: boolean) => void;
  children?: ReactNode;
}) {
  return (
    <div className="flex items-start justify-between gap-4 py-3">
      <div className="min-w-0">
        <label htmlFor={id} className={disabled ? "text-sm font-medium text-fg-subtle" : "text-sm font-medium text-fg"}>
          {label}
        </label>
        <p className="text-xs text-fg-muted">{hint}</p>
        {children}
      </div>
      <Switch id={id} data-testid={id} checked={checked} disabled={disabled} onCheckedChange={onChange} />
    </div>
  );
}
