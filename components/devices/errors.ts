"use client";

import { useCallback } from "react";
import { useTranslations } from "next-intl";
import { ApiBadRequestError, ApiBadResponseError } from "@/lib/api/client";
import { useValidationMessages } from "@/components/forms/messages";

/**
 * Server messages of the locations and devices API (lib/locations, lib/devices) said in the
 * user's language; keys under `devices.errors`. Messages that end in a detail ("IP is invalid:
 * 10.0.0.300") match by their start and keep the detail.
 */
const EXACT: Record<string, string> = {
  "name is already taken": "nameTaken",
  "Device with this name already exists": "deviceNameTaken",
  "key is already in use by another device": "keyTaken",
  "key is invalid": "keyInvalid",
  "location not found": "locationNotFound",
  "device not found": "deviceNotFound",
  "network devices can only be added to locations without MFA": "mfaLocation",
  "a network device cannot move to another location": "cannotMove",
  "invalid address": "invalidAddress",
  "fill in marked fields": "fillMarked",
  "user not found": "userNotFound",
};

const PREFIX: [string, string][] = [
  ["IP is invalid", "ipInvalid"],
  ["IP is already in use", "ipInUse"],
  ["location has no free address left", "locationFull"],
  ["invalid address", "invalidAddress"],
  ["fill in marked fields", "fillMarked"],
  ["key is already in use by another device", "keyTaken"],
  ["group not found", "groupNotFound"],
];

/** The text without a leading "field: " that the API adds to field errors. */
export function bareMessage(err: ApiBadRequestError): string {
  return err.field && err.msg.startsWith(`${err.field}: `) ? err.msg.slice(err.field.length + 2) : err.msg;
}

/** Turns any error of a locations/devices call into a sentence for a toast or a field. */
export function useApiErrorText() {
  const t = useTranslations("devices.errors");
  const { fromServer } = useValidationMessages();
  return useCallback(
    (err: unknown): string => {
      if (err instanceof ApiBadRequestError) {
        const bare = bareMessage(err);
        const small = /^location (\S+) is too small: (\d+) devices need an address, (\d+) fit$/.exec(bare);
        if (small) return t("tooSmall", { address: small[1], need: Number(small[2]), fit: Number(small[3]) });
        const exact = EXACT[bare];
        if (exact) return t(exact as never);
        for (const [prefix, key] of PREFIX) {
          if (bare.startsWith(prefix)) {
            const detail = bare.slice(prefix.length).replace(/^[:\s]+/, "");
            return detail ? `${t(key as never)}: ${detail}` : t(key as never);
          }
        }
        if (err.status === 403) return t("forbidden");
        if (err.status === 404) return t("notFound");
        // A validation message in the user's language, or the server's text without "field: ".
        const translated = fromServer(err);
        return translated && translated !== err.msg ? translated : bare;
      }
      if (err instanceof ApiBadResponseError) return err.msg ?? t("server");
      return t("network");
    },
    [t, fromServer],
  );
}
