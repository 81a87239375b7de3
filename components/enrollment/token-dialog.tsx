"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { AlertTriangle } from "lucide-react";
import { api, ApiBadRequestError } from "@/lib/api/client";
import { emailSchema } from "@/lib/validation";
import { useCodeBlockLabels } from "@/components/devices/config-result";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { CodeBlock } from "@/components/ui/code-block";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { QrCode } from "@/components/ui/qr-code";
import { useSubmit } from "@/components/ui/use-submit";

export type TokenKind = "enrollment" | "desktop";

interface Issued {
  enrollment_token: string;
  enrollment_url: string;
}

const schema = z.object({ send: z.boolean(), email: z.string().trim() }).superRefine((v, ctx) => {
  if (!v.send) return;
  const r = emailSchema.safeParse(v.email);
  if (!r.success) ctx.addIssue({ code: "custom", path: ["email"], message: r.error.issues[0].message });
});

/** What a desktop client (or the enrolment page) needs: URL and token, also as a QR code of `{"url","token"}` as defguard's clients read it. */
function IssuedToken({ kind, issued }: { kind: TokenKind; issued: Issued }) {
  const t = useTranslations("enrollToken");
  const labels = useCodeBlockLabels();
  const pageUrl = `${issued.enrollment_url}/enroll?token=${encodeURIComponent(issued.enrollment_token)}`;
  const qr = JSON.stringify({ url: issued.enrollment_url, token: issued.enrollment_token });
  return (
    <div className="flex flex-col gap-4" data-testid="enroll-token-issued">
      <div role="note" className="flex gap-3 rounded-lg border border-warning/40 bg-warning-subtle px-4 py-3 text-sm">
        <AlertTriangle className="mt-0.5 size-4 shrink-0 text-warning" aria-hidden />
        <div className="min-w-0">
          <p className="font-medium text-fg">{t("onceTitle")}</p>
          <p className="mt-0.5 text-fg-muted">{t("onceBody")}</p>
        </div>
      </div>
      <div className="grid gap-4 sm:grid-cols-[minmax(0,1fr)_auto]">
        <div className="flex min-w-0 flex-col gap-3">
          <ol className="flex list-decimal flex-col gap-1 pl-5 text-sm text-fg-muted marker:text-fg-subtle">
            <li>{t("stepClient")}</li>
            <li>{t("stepFill")}</li>
          </ol>
          <CodeBlock code={issued.enrollment_url} label={t("url")} labels={labels} wrap data-testid="enroll-token-url" />
          <CodeBlock code={issued.enrollment_token} label={t("token")} labels={labels} wrap data-testid="enroll-token-value" />
          {kind === "enrollment" && <CodeBlock code={pageUrl} label={t("pageLink")} labels={labels} wrap data-testid="enroll-token-link" />}
        </div>
        <figure className="flex flex-col items-center gap-2 self-start justify-self-center">
          <QrCode value={qr} label={t("qrLabel")} tooLong={t("qrLabel")} size={176} data-testid="enroll-token-qr" />
          <figcaption className="max-w-44 text-center text-xs text-fg-muted">{t("qrCaption")}</figcaption>
        </figure>
      </div>
    </div>
  );
}

/**
 * "Start enrollment" (a user without a password) or "Desktop activation" (an enrolled user):
 * optionally e-mail the token, then show URL, token and QR code once.
 */
export function EnrollmentTokenDialog({
  user,
  kind,
  onOpenChange,
}: {
  user: { username: string; email: string };
  kind: TokenKind;
  onOpenChange: (open: boolean) => void;
}) {
  const t = useTranslations("enrollToken");
  const [issued, setIssued] = useState<Issued | null>(null);
  const form = useForm({ resolver: zodResolver(schema), defaultValues: { send: false, email: user.email } });
  const send = form.watch("send");
  const submit = useSubmit(form, {
    mutationFn: (v) =>
      api.post<Issued>(`/user/${encodeURIComponent(user.username)}/${kind === "enrollment" ? "start_enrollment" : "start_desktop"}`, {
        send_enrollment_notification: v.send,
        email: v.send ? v.email : undefined,
      }),
    onSuccess: (r) => setIssued(r as Issued),
    success: (_r, v) => (v.send ? t("sent", { email: v.email }) : t("created")),
    errorText: (err) => (err instanceof ApiBadRequestError ? err.msg : t("failed")),
    failure: kind === "enrollment" ? t("enrollFailed") : t("desktopFailed"),
    fields: ["email"],
  });

  return (
    <Dialog open onOpenChange={(o) => !submit.pending && onOpenChange(o)}>
      <DialogContent
        title={kind === "enrollment" ? t("enrollTitle", { username: user.username }) : t("desktopTitle", { username: user.username })}
        description={kind === "enrollment" ? t("enrollDescription") : t("desktopDescription")}
        className={issued ? "max-w-2xl" : "max-w-md"}
        onInteractOutside={(e) => issued && e.preventDefault()}
      >
        {issued ? (
          <>
            <IssuedToken kind={kind} issued={issued} />
            <DialogFooter>
              <DialogClose asChild>
                <Button data-testid="enroll-token-done">{t("done")}</Button>
              </DialogClose>
            </DialogFooter>
          </>
        ) : (
          <form noValidate onSubmit={submit.onSubmit} className="flex flex-col gap-4" data-testid="enroll-token-dialog-form">
            <label className="flex items-center gap-2 text-sm">
              <Controller
                control={form.control}
                name="send"
                render={({ field }) => <Checkbox checked={field.value} onCheckedChange={(c) => field.onChange(c === true)} data-testid="enroll-token-send" />}
              />
              {t("sendEmail")}
            </label>
            {send && (
              <Field label={t("email")} error={submit.errorOf("email")}>
                <Input type="email" data-testid="enroll-token-email" {...form.register("email")} />
              </Field>
            )}
            <DialogFormFooter submitLabel={t("generate")} pending={submit.pending} submitTestId="enroll-token-generate" />
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}
