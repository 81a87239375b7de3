"use client";

import { useCallback, useRef } from "react";
import type { BaseSyntheticEvent } from "react";
import type { FieldValues, Path, UseFormReturn } from "react-hook-form";
import { useMutation } from "@tanstack/react-query";
import { ApiBadRequestError } from "@/lib/api/client";
import { useValidationMessages } from "@/components/forms/messages";
import { toast } from "@/components/ui/toaster";

export interface SubmitOptions<TOut, TResult> {
  /** The call; it gets the values the zod resolver produced. */
  mutationFn: (values: TOut) => Promise<TResult>;
  /** The success toast's text (none when it returns undefined). */
  success?: (result: TResult, values: TOut) => string | undefined;
  /** May return a promise (e.g. refetches): the submit stays in progress until it settles. */
  onSuccess?: (result: TResult, values: TOut) => unknown;
  /** Turns an error of the call into a sentence in the user's language. */
  errorText: (err: unknown) => string;
  /** Title of the error toast; the server's message goes under it. Without it the message is the toast. */
  failure?: string;
  /**
   * Fields a 400 `{msg, field}` may land on (default: every field of the form's values).
   * `toastFieldErrors` also toasts an error put on a field (for fields the user cannot see).
   */
  fields?: readonly string[];
  /** Where an error that names no field of the form lands instead of a toast (a one-field form). */
  errorField?: string;
  toastFieldErrors?: boolean | ((field: string, values: TOut) => boolean);
  /** Says a failure that lands on no field in the form's own place instead of a toast. */
  report?: (text: string, err: unknown) => void;
  /** Called on every failure, before the field error or toast. */
  onError?: (err: unknown, values: TOut) => void;
  /**
   * Checks outside the form (e.g. addresses), or a step before sending (a confirm dialog that
   * calls `send` with these values later); false stops the submit after validation.
   */
  ready?: (values: TOut) => boolean;
  /** Called on every submit attempt, valid or not. */
  onAttempt?: () => void;
}

/**
 * The one submit pattern of the console's forms (react-hook-form + the shared zod schema): the
 * form cannot be sent twice, success ends in a toast, a 400 naming a field of the form puts the
 * message on that field (and focuses it), anything else is a toast with the server's message.
 */
export function useSubmit<TIn extends FieldValues, TOut, TResult = unknown>(
  form: UseFormReturn<TIn, unknown, TOut>,
  options: SubmitOptions<TOut, TResult>,
) {
  const { fromKey } = useValidationMessages();
  const busy = useRef(false);
  const opts = useRef(options);
  opts.current = options;

  const mutation = useMutation<TResult, unknown, TOut>({
    mutationFn: (v) => opts.current.mutationFn(v),
    onSuccess: (result, v) => {
      const text = opts.current.success?.(result, v);
      if (text) toast.success(text);
      return opts.current.onSuccess?.(result, v);
    },
    onError: (err, v) => {
      const o = opts.current;
      o.onError?.(err, v);
      const text = o.errorText(err);
      const named = err instanceof ApiBadRequestError ? err.field : undefined;
      const fields = o.fields ?? Object.keys(form.getValues());
      const field = named && fields.includes(named) ? named : o.errorField;
      if (field) {
        form.setError(field as Path<TIn>, { message: text }, { shouldFocus: true });
        const alsoToast = typeof o.toastFieldErrors === "function" ? o.toastFieldErrors(field, v) : o.toastFieldErrors;
        if (!alsoToast) return;
      }
      if (o.report) o.report(text, err);
      else if (o.failure) toast.error(o.failure, { subMessage: text });
      else toast.error(text);
    },
  });

  /** Sends values the form already validated, at most once at a time. */
  const send = useCallback(
    async (v: TOut) => {
      if (busy.current) return;
      busy.current = true;
      try {
        await mutation.mutateAsync(v).catch(() => undefined);
      } finally {
        busy.current = false;
      }
    },
    [mutation],
  );

  const onSubmit = useCallback(
    (e?: BaseSyntheticEvent) =>
      form.handleSubmit(
        async (v) => {
          opts.current.onAttempt?.();
          if (busy.current || (opts.current.ready && !opts.current.ready(v))) return;
          await send(v);
        },
        () => opts.current.onAttempt?.(),
      )(e),
    [form, send],
  );

  /** The message of a field's error in the user's language (zod gives validation keys). */
  const errorOf = useCallback(
    (name: Path<TIn>) => {
      const m = form.getFieldState(name, form.formState).error?.message;
      return m ? fromKey(m) : undefined;
    },
    [form, fromKey],
  );

  return { onSubmit, send, errorOf, pending: mutation.isPending, reset: mutation.reset, mutation };
}
