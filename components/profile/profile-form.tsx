"use client";

import { useState } from "react";
import { usePathname, useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { AlertTriangle } from "lucide-react";
import { api } from "@/lib/api/client";
import type { UserInfo, UserInfoBody } from "@/lib/api/types";
import { updateUserSchema } from "@/lib/users/schema";
import { currentUserQuery } from "@/components/auth/use-current-user";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { MultiSelect } from "@/components/ui/multi-select";
import { Switch } from "@/components/ui/switch";
import { useSubmit } from "@/components/ui/use-submit";
import { useMultiSelectLabels } from "@/components/users/labels";
import { groupNamesQuery, userKeys, userPath } from "@/components/users/queries";
import { useServerError } from "@/components/users/server-errors";

type FormInput = z.input<typeof updateUserSchema>;
type FormOutput = z.output<typeof updateUserSchema>;

interface ProfileFormProps {
  user: UserInfo;
  /** The signed-in user's own profile. */
  self: boolean;
  /** Admins change everything; others only their names and phone (the API refuses the rest). */
  admin: boolean;
  onDone: () => void;
}

/** Edits a user's details with the shared schema; a changed username or e-mail is confirmed first. */
export function ProfileForm({ user, self, admin, onDone }: ProfileFormProps) {
  const t = useTranslations("profile");
  const tc = useTranslations("common");
  const router = useRouter();
  const pathname = usePathname();
  const client = useQueryClient();
  const serverError = useServerError();
  const pickerLabels = useMultiSelectLabels("profile");
  const groups = useQuery({ ...groupNamesQuery, enabled: admin });
  const [pending, setPending] = useState<FormOutput | null>(null);

  const form = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(updateUserSchema),
    mode: "onTouched",
    defaultValues: {
      username: user.username,
      first_name: user.first_name,
      last_name: user.last_name,
      email: user.email,
      phone: user.phone ?? "",
      is_active: user.is_active,
      groups: user.groups,
    },
  });
  const { errors } = form.formState;

  const needsConfirm = (v: FormOutput) => admin && (v.username !== user.username || v.email.toLowerCase() !== user.email.toLowerCase());

  const { onSubmit, send, errorOf, pending: saving } = useSubmit(form, {
    mutationFn: (v: FormOutput) =>
      api.put<UserInfoBody>(
        userPath(user.username),
        admin
          ? v
          : // Not an admin: the fields only an admin may change go back unchanged.
            { username: user.username, email: user.email, first_name: v.first_name, last_name: v.last_name, phone: v.phone },
      ),
    success: () => t("saved"),
    onSuccess: async (saved) => {
      const renamed = saved.username !== user.username;
      client.setQueryData(userKeys.details(saved.username), (old: { user: UserInfo } | undefined) =>
        old ? { ...old, user: saved } : old,
      );
      if (self) client.setQueryData(currentUserQuery.queryKey, saved);
      await Promise.all([
        client.invalidateQueries({ queryKey: userKeys.all }),
        client.invalidateQueries({ queryKey: currentUserQuery.queryKey }),
        !renamed && client.invalidateQueries({ queryKey: userKeys.details(user.username) }),
      ]);
      onDone();
      if (renamed && pathname.startsWith("/users/")) router.replace(`/users/${encodeURIComponent(saved.username)}`);
      else if (renamed) router.refresh();
    },
    errorText: serverError,
    failure: t("saveFailed"),
    // A changed username or e-mail is confirmed first; the dialog sends.
    ready: (v) => {
      if (!needsConfirm(v)) return true;
      setPending(v);
      return false;
    },
  });

  const warnings = pending
    ? [pending.username !== user.username && t("confirm.username"), pending.email.toLowerCase() !== user.email.toLowerCase() && t("confirm.email")].filter(
        (w): w is string => typeof w === "string",
      )
    : [];

  return (
    <>
      <form noValidate onSubmit={onSubmit} className="flex flex-col gap-4" data-testid="profile-form">
        <div className="grid gap-4 sm:grid-cols-2">
          <Field label={t("firstName")} error={errorOf("first_name")}>
            <Input data-testid="profile-first-name" autoComplete="given-name" {...form.register("first_name")} />
          </Field>
          <Field label={t("lastName")} error={errorOf("last_name")}>
            <Input data-testid="profile-last-name" autoComplete="family-name" {...form.register("last_name")} />
          </Field>
        </div>
        <Field
          label={t("username")}
          error={errorOf("username")}
          hint={admin ? t("usernameHint") : t("adminOnly")}
        >
          <Input
            data-testid="profile-username"
            readOnly={!admin}
            autoCapitalize="none"
            spellCheck={false}
            className="font-mono read-only:bg-subtle read-only:text-fg-muted"
            {...form.register("username")}
          />
        </Field>
        <Field label={t("email")} error={errorOf("email")} hint={admin ? undefined : t("adminOnly")}>
          <Input
            data-testid="profile-email"
            type="email"
            readOnly={!admin}
            autoComplete="email"
            className="read-only:bg-subtle read-only:text-fg-muted"
            {...form.register("email")}
          />
        </Field>
        <Field label={t("phone")} error={errorOf("phone")}>
          <Input data-testid="profile-phone" type="tel" autoComplete="tel" {...form.register("phone")} />
        </Field>
        {admin && (
          <>
            <Field label={t("groups")} hint={t("groupsHint")} error={errors.groups?.message}>
              <Controller
                control={form.control}
                name="groups"
                render={({ field }) => (
                  <MultiSelect
                    data-testid="profile-groups"
                    value={field.value ?? []}
                    onChange={field.onChange}
                    options={(groups.data ?? []).map((g) => ({ value: g, label: g }))}
                    loading={groups.isPending}
                    placeholder={t("groupsPlaceholder")}
                    labels={pickerLabels}
                  />
                )}
              />
            </Field>
            <Controller
              control={form.control}
              name="is_active"
              render={({ field }) => (
                <div className="flex items-start justify-between gap-4 rounded-md border border-border p-3">
                  <div className="min-w-0">
                    <label htmlFor="profile-active" className="text-sm font-medium text-fg">
                      {t("activeLabel")}
                    </label>
                    <p className="text-xs text-fg-muted">{self ? t("activeSelfHint") : t("activeHint")}</p>
                  </div>
                  <Switch
                    id="profile-active"
                    data-testid="profile-active"
                    checked={field.value ?? true}
                    onCheckedChange={field.onChange}
                    disabled={self}
                  />
                </div>
              )}
            />
          </>
        )}
        <div className="flex flex-col-reverse gap-2 pt-2 sm:flex-row sm:justify-end">
          <Button variant="secondary" onClick={onDone} disabled={saving}>
            {tc("cancel")}
          </Button>
          <Button type="submit" loading={saving || form.formState.isSubmitting} data-testid="profile-save">
            {t("save")}
          </Button>
        </div>
      </form>

      <ConfirmDialog
        open={pending !== null}
        onOpenChange={(o) => !o && setPending(null)}
        title={t("confirm.title")}
        description={
          <span className="flex flex-col gap-2" data-testid="profile-confirm-warnings">
            {warnings.map((w) => (
              <span key={w} className="flex items-start gap-2">
                <AlertTriangle className="mt-0.5 size-4 shrink-0 text-warning" aria-hidden />
                <span>{w}</span>
              </span>
            ))}
          </span>
        }
        confirmLabel={t("confirm.confirm")}
        // Either way the dialog closes: errors land on their field or in a toast.
        onConfirm={() => pending && send(pending)}
      />
    </>
  );
}
