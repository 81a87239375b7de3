"use client";

import { useCallback } from "react";
import { useTranslations } from "next-intl";
import { ApiBadRequestError, ApiBadResponseError } from "@/lib/api/client";
import { useValidationMessages } from "@/components/forms/messages";
import { smtpFailureOfMessage } from "@/lib/mail/failures";

/**
 * Server messages (lib/users, lib/groups, lib/mail) that the console says in the user's
 * language. Keys are under `users.errors`; anything else is shown as the server sent it.
 */
const KNOWN: Record<string, string> = {
  "username is already in use": "usernameTaken",
  "email already taken": "emailTaken",
  "the last active admin cannot lose admin rights": "lastAdmin",
  "only an admin can change this field": "adminOnlyField",
  "old password is incorrect": "wrongOldPassword",
  "use your profile to change your own password": "ownPasswordViaProfile",
  "user account is disabled": "accountDisabled",
  "name is already taken": "nameTaken",
  "user not found": "userNotFound",
  "group not found": "groupNotFound",
};

/** The text without a leading "field: " that the API adds to field errors. */
export function bareMessage(err: ApiBadRequestError): string {
  return err.field && err.msg.startsWith(`${err.field}: `) ? err.msg.slice(err.field.length + 2) : err.msg;
}

export function isSmtpNotConfigured(err: unknown): boolean {
  return err instanceof ApiBadRequestError && err.msg.startsWith("SMTP must be configured");
}

export function isMfaSetupRequired(err: unknown): boolean {
  return err instanceof ApiBadRequestError && err.status === 403 && err.msg.startsWith("MFA setup required");
}

/** Turns any error of a call into a sentence for a toast or a field. */
export function useServerError() {
  const t = useTranslations("users.errors");
  const { fromServer } = useValidationMessages();
  return useCallback(
    (err: unknown): string => {
      if (err instanceof ApiBadRequestError) {
        const key = KNOWN[bareMessage(err)];
        if (key) return t(key as never);
        if (isSmtpNotConfigured(err)) return t("smtpNotConfigured");
        if (isMfaSetupRequired(err)) return t("mfaSetupRequired");
        if (err.status === 403) return t("forbidden");
        return fromServer(err) ?? err.msg;
      }
      if (err instanceof ApiBadResponseError) {
        const smtp = smtpFailureOfMessage(err.msg);
        if (smtp) return t(`smtpFailure.${smtp}`);
        return err.msg ?? t("server");
      }
      return t("network");
    },
    [t, fromServer],
  );
}
