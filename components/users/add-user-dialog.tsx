"use client";

import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { useForm, useWatch } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { CircleCheck, CircleX, Info } from "lucide-react";
import { api, ApiBadRequestError } from "@/lib/api/client";
import type { UserInfoBody } from "@/lib/api/types";
import { createUserSchema } from "@/lib/users/schema";
import { passwordSchema, usernameSchema } from "@/lib/validation";
import { useValidationMessages } from "@/components/forms/messages";
import { displayName } from "@/components/shell/user-avatar";
import { EnrollmentTokenDialog } from "@/components/enrollment/token-dialog";
import { Checkbox } from "@/components/ui/checkbox";
import { Dialog, DialogContent, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { toast } from "@/components/ui/toaster";
import { useDebouncedValue } from "@/components/ui/use-debounced-value";
import { useSubmit } from "@/components/ui/use-submit";
import { userKeys } from "./queries";
import { useServerError } from "./server-errors";

/** The shared schema; the password may stay empty (the user is then created for enrollment). */
const formSchema = createUserSchema
  .extend({ password: z.string().optional() })
  .superRefine((v, ctx) => {
    if (!v.password) return;
    const r = passwordSchema.safeParse(v.password);
    if (!r.success) ctx.addIssue({ code: "custom", path: ["password"], message: r.error.issues[0].message });
  });

type FormInput = z.input<typeof formSchema>;
type FormOutput = z.output<typeof formSchema>;

const EMPTY: FormInput = { username: "", first_name: "", last_name: "", email: "", phone: "", password: "" };

type Availability = "idle" | "checking" | "available" | "taken" | "unknown";

/** POST /user/available: 200 free, 400 "username is already in use". */
function useUsernameAvailability(username: string): Availability {
  const debounced = useDebouncedValue(username.trim(), 350);
  const valid = debounced !== "" && usernameSchema.safeParse(debounced).success;
  const q = useQuery({
    queryKey: ["users", "available", debounced.toLowerCase()],
    queryFn: async ({ signal }) => {
      try {
        await api.post("/user/available", { username: debounced }, { signal });
        return true;
      } catch (err) {
        if (err instanceof ApiBadRequestError && err.status === 400) return false;
        throw err;
      }
    },
    enabled: valid,
    staleTime: 0,
    gcTime: 10_000,
    retry: false,
  });
  if (!valid || username.trim() === "") return "idle";
  if (debounced !== username.trim() || q.isFetching) return "checking";
  if (q.isError) return "unknown";
  return q.data ? "available" : "taken";
}

export function AddUserDialog({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  const t = useTranslations("users.add");
  const te = useTranslations("users.errors");
  const client = useQueryClient();
  const { fromKey } = useValidationMessages();
  const serverError = useServerError();

  const form = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(formSchema),
    mode: "onTouched",
    defaultValues: EMPTY,
  });
  const { errors } = form.formState;
  const username = useWatch({ control: form.control, name: "username" }) ?? "";
  const password = useWatch({ control: form.control, name: "password" }) ?? "";
  const availability = useUsernameAvailability(username);
  /** "Enable enrollment": no password now; the enrolment token dialog opens for the new user. */
  const [enroll, setEnroll] = useState(false);
  const [enrollFor, setEnrollFor] = useState<{ username: string; email: string } | null>(null);

  useEffect(() => {
    if (open) {
      form.reset(EMPTY);
      setEnroll(false);
    }
  }, [open, form]);

  const create = useSubmit(form, {
    mutationFn: (v) =>
      api.post<UserInfoBody>("/user", {
        username: v.username,
        first_name: v.first_name,
        last_name: v.last_name,
        email: v.email,
        phone: v.phone ?? undefined,
        password: (!enroll && v.password) || undefined,
      }),
    onSuccess: async (user, v) => {
      toast.success(t("created", { name: displayName(user) }), {
        subMessage: v.password && !enroll ? undefined : t("createdForEnrollment"),
      });
      onOpenChange(false);
      if (enroll) setEnrollFor({ username: user.username, email: user.email });
      await client.invalidateQueries({ queryKey: userKeys.all });
    },
    errorText: serverError,
    failure: t("failed"),
    ready: () => {
      if (availability !== "taken") return true;
      form.setError("username", { message: te("usernameTaken") }, { shouldFocus: true });
      return false;
    },
  });

  const usernameError = errors.username ? fromKey(errors.username.message) : availability === "taken" ? te("usernameTaken") : undefined;
  const usernameHint =
    availability === "checking" ? (
      <span className="inline-flex items-center gap-1.5">
        <Spinner size={12} />
        {t("checking")}
      </span>
    ) : availability === "available" ? (
      <span data-testid="username-available" className="inline-flex items-center gap-1 font-medium text-success">
        <CircleCheck className="size-3.5" aria-hidden />
        {t("available")}
      </span>
    ) : (
      t("usernameHint")
    );

  return (
    <>
    <Dialog open={open} onOpenChange={(next) => !create.pending && onOpenChange(next)}>
      <DialogContent data-testid="add-user-dialog" title={t("title")} description={t("description")} className="max-w-lg">
        <form noValidate onSubmit={create.onSubmit} className="flex flex-col gap-4">
          <Field label={t("username")} error={usernameError} hint={usernameHint}>
            <div className="relative">
              <Input
                data-testid="add-user-username"
                autoComplete="off"
                autoCapitalize="none"
                spellCheck={false}
                autoFocus
                className="pr-9 font-mono"
                {...form.register("username")}
              />
              <span className="pointer-events-none absolute inset-y-0 right-3 flex items-center" aria-hidden>
                {availability === "available" && <CircleCheck className="size-4 text-success" />}
                {availability === "taken" && <CircleX className="size-4 text-error" />}
              </span>
            </div>
          </Field>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label={t("firstName")} error={fromKey(errors.first_name?.message)}>
              <Input data-testid="add-user-first-name" autoComplete="off" {...form.register("first_name")} />
            </Field>
            <Field label={t("lastName")} error={fromKey(errors.last_name?.message)}>
              <Input data-testid="add-user-last-name" autoComplete="off" {...form.register("last_name")} />
            </Field>
          </div>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label={t("email")} error={fromKey(errors.email?.message)}>
              <Input data-testid="add-user-email" type="email" autoComplete="off" {...form.register("email")} />
            </Field>
            <Field label={t("phone")} error={fromKey(errors.phone?.message)} hint={t("optional")}>
              <Input data-testid="add-user-phone" type="tel" autoComplete="off" {...form.register("phone")} />
            </Field>
          </div>
          <label className="flex items-center gap-2 text-sm">
            <Checkbox
              checked={enroll}
              onCheckedChange={(c) => {
                setEnroll(c === true);
                if (c === true) form.setValue("password", "", { shouldValidate: false });
              }}
              data-testid="add-user-enable-enrollment"
            />
            {t("enableEnrollment")}
          </label>
          {!enroll && (
            <Field label={t("password")} error={fromKey(errors.password?.message)} hint={t("passwordHint")}>
              <Input data-testid="add-user-password" type="password" autoComplete="new-password" {...form.register("password")} />
            </Field>
          )}
          {(enroll || !password) && (
            <p className="flex items-start gap-2 rounded-md bg-info-subtle px-3 py-2 text-xs text-fg" data-testid="enrollment-note">
              <Info className="mt-px size-3.5 shrink-0 text-info" aria-hidden />
              {t("enrollmentNote")}
            </p>
          )}
          <DialogFormFooter submitLabel={t("submit")} pending={create.pending || form.formState.isSubmitting} submitTestId="add-user-submit" />
        </form>
      </DialogContent>
    </Dialog>
    {enrollFor && <EnrollmentTokenDialog user={enrollFor} kind="enrollment" onOpenChange={(o) => !o && setEnrollFor(null)} />}
    </>
  );
}
