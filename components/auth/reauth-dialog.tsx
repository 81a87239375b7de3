"use client";

import { useEffect, useRef, useState, type FormEvent } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { ApiBadRequestError, apiRequest, setReauthHandler } from "@/lib/api/client";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { CodeInput } from "@/components/mfa/code-input";
import { currentUserQuery } from "./use-current-user";

type Mode = "password" | "code";

/**
 * "Confirm it is you": opened by the API client when a change to sign-in security answers 403
 * reauth_required. The user types their password (or an authenticator code), the client calls
 * POST /auth/reauth and sends the refused request again. Cancelling leaves the request refused.
 */
export function ReauthDialog() {
  const t = useTranslations("auth.reauth");
  const tc = useTranslations("common");
  const [open, setOpen] = useState(false);
  const [mode, setMode] = useState<Mode>("password");
  const [password, setPassword] = useState("");
  const [code, setCode] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const resolver = useRef<((ok: boolean) => void) | null>(null);
  // Only while the dialog is open, and only from the cache's point of view: no extra request at start.
  const me = useQuery({ ...currentUserQuery, enabled: open });
  const hasTotp = me.data?.totp_enabled === true;

  useEffect(
    () =>
      setReauthHandler(
        () =>
          new Promise<boolean>((resolve) => {
            resolver.current = resolve;
            setMode("password");
            setPassword("");
            setCode("");
            setError(null);
            setOpen(true);
          }),
      ),
    [],
  );

  function finish(ok: boolean) {
    setOpen(false);
    resolver.current?.(ok);
    resolver.current = null;
  }

  async function submit(e?: FormEvent) {
    e?.preventDefault();
    if (busy) return;
    const value = mode === "password" ? password : code;
    if (!value) {
      setError(mode === "password" ? t("passwordRequired") : t("codeRequired"));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await apiRequest("POST", "/auth/reauth", mode === "password" ? { password } : { code });
      finish(true);
    } catch (err) {
      if (err instanceof ApiBadRequestError && err.status === 429) setError(t("tooMany"));
      else if (err instanceof ApiBadRequestError && err.status === 400) setError(mode === "password" ? t("wrongPassword") : t("wrongCode"));
      else setError(t("failed"));
      if (mode === "code") setCode("");
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={(o) => (o ? setOpen(true) : finish(false))}>
      <DialogContent data-testid="reauth-dialog" title={t("title")} description={t("description")}>
        <form onSubmit={submit} className="flex flex-col gap-4" noValidate>
          {mode === "password" ? (
            <Field label={t("password")} error={error ?? undefined}>
              <Input
                data-testid="reauth-password"
                type="password"
                autoComplete="current-password"
                autoFocus
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            </Field>
          ) : (
            <Field label={t("code")} error={error ?? undefined}>
              <CodeInput data-testid="reauth-code" autoFocus value={code} onChange={setCode} />
            </Field>
          )}
          {hasTotp && (
            <button
              type="button"
              data-testid="reauth-switch"
              className="self-start text-sm font-medium text-accent underline-offset-4 hover:underline"
              onClick={() => {
                setMode(mode === "password" ? "code" : "password");
                setError(null);
              }}
            >
              {mode === "password" ? t("useCode") : t("usePassword")}
            </button>
          )}
          <DialogFooter>
            <DialogClose asChild>
              <Button type="button" variant="secondary" data-testid="reauth-cancel">
                {tc("cancel")}
              </Button>
            </DialogClose>
            <Button type="submit" loading={busy} data-testid="reauth-submit">
              {t("confirm")}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
