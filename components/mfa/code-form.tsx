"use client";

import { useRef, type ReactNode } from "react";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import type { z } from "zod";
import { codeSchema } from "@/lib/mfa/schema";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { useSubmit } from "@/components/ui/use-submit";
import { CodeInput } from "./code-input";
import { useMfaErrors } from "./errors";

type CodeIn = z.input<typeof codeSchema>;
type CodeOut = z.output<typeof codeSchema>;

interface CodeFormProps {
  label: string;
  hint?: ReactNode;
  submitLabel: string;
  /** Rejects with the API error: it lands on the code field. */
  onSubmit: (code: string) => Promise<unknown>;
  /** data-testid prefix: `<id>-input`, `<id>-submit`. */
  testId: string;
  autoFocus?: boolean;
  /** Extra controls under the submit button (resend, other methods). */
  children?: ReactNode;
  /** Full-width large submit (sign-in) rather than a footer button (dialogs). */
  layout?: "page" | "dialog";
  /** Rendered beside the submit button in dialogs (Cancel). */
  secondary?: ReactNode;
}

/** A 6-digit code form on the shared zod schema: validates on blur and submit, auto-submits at six digits. */
export function CodeForm({ label, hint, submitLabel, onSubmit, testId, autoFocus, children, layout = "page", secondary }: CodeFormProps) {
  const { messageOf } = useMfaErrors();
  const inputRef = useRef<HTMLInputElement | null>(null);
  const form = useForm<CodeIn, unknown, CodeOut>({
    resolver: zodResolver(codeSchema),
    // Validated on submit and on blur once something was typed: leaving an empty field (to pick
    // another method, say) must not raise an error that shifts the layout under the pointer.
    mode: "onSubmit",
    defaultValues: { code: "" },
  });
  const { errors, isSubmitting } = form.formState;

  const { onSubmit: submit, errorOf } = useSubmit(form, {
    mutationFn: ({ code }) => onSubmit(code),
    errorText: messageOf,
    // Every refusal is about the code: it lands on the field, which starts again empty.
    errorField: "code",
    onError: () => form.setValue("code", ""),
  });

  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-4">
      <Field label={label} hint={hint} error={errorOf("code")}>
        <Controller
          control={form.control}
          name="code"
          render={({ field }) => (
            <CodeInput
              data-testid={`${testId}-input`}
              ref={(el) => {
                field.ref(el);
                inputRef.current = el;
              }}
              name={field.name}
              value={String(field.value ?? "")}
              onBlur={() => {
                field.onBlur();
                if (field.value) void form.trigger("code");
              }}
              autoFocus={autoFocus}
              readOnly={isSubmitting}
              onChange={(v) => {
                field.onChange(v);
                if (errors.code) form.clearErrors("code");
              }}
              onComplete={() => void submit()}
            />
          )}
        />
      </Field>
      {layout === "page" ? (
        <Button data-testid={`${testId}-submit`} type="submit" size="lg" loading={isSubmitting} className="w-full">
          {submitLabel}
        </Button>
      ) : (
        <div className="mt-2 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          {secondary}
          <Button data-testid={`${testId}-submit`} type="submit" loading={isSubmitting}>
            {submitLabel}
          </Button>
        </div>
      )}
      {children}
    </form>
  );
}
