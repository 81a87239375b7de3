"use client";

import { useCallback } from "react";
import { useTranslations } from "next-intl";
import { WebAuthnError } from "@simplewebauthn/browser";
import { ApiBadRequestError, ApiBadResponseError } from "@/lib/api/client";
import { useValidationMessages } from "@/components/forms/messages";

/** The server's fixed English reasons (lib/mfa, lib/auth, lib/mail) and their message keys under `mfa.errors`. */
const KNOWN: [RegExp, ErrorKey][] = [
  [/^code is invalid/i, "codeInvalid"],
  // The enrolment's MFA set-up answers in the wording of defguard's proxy.
  [/^(email )?code invalid$/i, "codeInvalid"],
  [/^recovery code is invalid/i, "recoveryInvalid"],
  [/^failed to read key/i, "keyFailed"],
  [/^key already registered/i, "keyDuplicate"],
  [/^too many failed sign-in attempts/i, "tooManyAttempts"],
  [/^a code was sent a moment ago/i, "tooSoon"],
  [/^SMTP must be configured/i, "smtpMissing"],
  [/^no sign-in is waiting/i, "loginExpired"],
  [/^second authentication factor required|^not signed in/i, "loginExpired"],
  [/^sending e-mail failed/i, "emailFailed"],
  [/^this authentication method is not enabled/i, "methodNotEnabled"],
  [/^start TOTP setup first|^start security key/i, "startAgain"],
];

export type ErrorKey =
  | "codeInvalid"
  | "recoveryInvalid"
  | "keyFailed"
  | "keyDuplicate"
  | "tooManyAttempts"
  | "tooSoon"
  | "smtpMissing"
  | "loginExpired"
  | "emailFailed"
  | "methodNotEnabled"
  | "startAgain"
  | "generic";

/** What to say about a failed MFA call, in the user's language. */
export function useMfaErrors() {
  const t = useTranslations("mfa.errors");
  const { fromServer } = useValidationMessages();

  const keyOf = useCallback((err: unknown): ErrorKey | null => {
    if (err instanceof WebAuthnError) {
      return err.code === "ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED" ? "keyDuplicate" : "keyFailed";
    }
    // The browser's own refusals (cancelled, timed out, no authenticator).
    if (err instanceof DOMException || (err instanceof Error && err.name === "NotAllowedError")) return "keyFailed";
    if (err instanceof ApiBadRequestError || err instanceof ApiBadResponseError) {
      // A field error reads "<field>: <reason>".
      const msg = (err.msg ?? "").replace(/^\w+: /, "");
      for (const [re, key] of KNOWN) if (re.test(msg)) return key;
      if (err.status === 429) return "tooManyAttempts";
      return null;
    }
    return null;
  }, []);

  const messageOf = useCallback(
    (err: unknown): string => {
      const key = keyOf(err);
      if (key) return t(key);
      if (err instanceof ApiBadRequestError) return (err.field ? fromServer(err) : err.msg) ?? err.msg;
      if (err instanceof ApiBadResponseError && err.msg) return err.msg;
      return t("generic");
    },
    [keyOf, t, fromServer],
  );

  return { keyOf, messageOf };
}
