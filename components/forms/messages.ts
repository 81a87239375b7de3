"use client";

import { useCallback } from "react";
import { useTranslations } from "next-intl";
import en from "@/messages/en.json";
import type { ApiBadRequestError } from "@/lib/api/client";

const englishValidation: Record<string, string> = en.validation;

/**
 * The validation key behind a server field error: the API answers "<field>: <English text>"
 * with the English texts of messages/en.json, so the text leads back to its key.
 */
function validationKeyOf(err: ApiBadRequestError): string | undefined {
  const text = err.field && err.msg.startsWith(`${err.field}: `) ? err.msg.slice(err.field.length + 2) : err.msg;
  return Object.keys(englishValidation).find((k) => englishValidation[k] === text);
}

/** Translates zod messages (validation keys) and server field errors into the user's language. */
export function useValidationMessages() {
  const t = useTranslations("validation");
  const fromKey = useCallback((key: string | undefined) => {
    if (!key) return undefined;
    return t.has(key as never) ? t(key as never) : key;
  }, [t]);
  const fromServer = useCallback(
    (err: ApiBadRequestError) => {
      const key = validationKeyOf(err);
      return key ? fromKey(key) : err.msg;
    },
    [fromKey],
  );
  return { fromKey, fromServer };
}
