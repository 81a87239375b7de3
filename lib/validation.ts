import { z } from "zod";
import { badRequest } from "./errors";

// In the browser zod must not probe for eval (`new Function`): the console's Content-Security-
// Policy forbids it and every probe is reported as a violation. Every shared schema imports
// this module, so the setting is in place before any form parses.
if (typeof window !== "undefined") z.config({ jitless: true });

/**
 * Shared field rules. Messages are keys under `validation.` in messages/*.json: forms
 * translate them, the API turns them into English via lib/http.
 */
export const V = {
  required: "required",
  tooLong: "tooLong",
  tooShort: "tooShort",
  forbiddenChars: "forbiddenChars",
  invalidEmail: "invalidEmail",
  passwordDigit: "passwordDigit",
  passwordSpecial: "passwordSpecial",
  passwordUpper: "passwordUpper",
  passwordLower: "passwordLower",
  invalidPhone: "invalidPhone",
  invalidUrl: "invalidUrl",
  invalidType: "invalidType",
  invalidNumber: "invalidNumber",
  invalidDate: "invalidDate",
  invalidOption: "invalidOption",
} as const;

/** zod error option: "required" when the value is missing, "invalidType" when it has the wrong type. */
export const requiredOrType = {
  error: (iss: { input?: unknown }) => (iss.input === undefined || iss.input === null ? V.required : V.invalidType),
};

/** Usernames: 1-63 chars of [A-Za-z0-9._-], not starting with ".", "-" or "_" (docs/api.md). */
export const usernameSchema = z
  .string(requiredOrType)
  .trim()
  .min(1, { error: V.required })
  .max(63, { error: V.tooLong })
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, { error: V.forbiddenChars });

/** Passwords: 8-128 chars with upper, lower, digit and special character (docs/api.md). */
export const passwordSchema = z
  .string(requiredOrType)
  .min(8, { error: V.tooShort })
  .max(128, { error: V.tooLong })
  .regex(/[0-9]/, { error: V.passwordDigit })
  .regex(/[^A-Za-z0-9]/, { error: V.passwordSpecial })
  .regex(/[A-Z]/, { error: V.passwordUpper })
  .regex(/[a-z]/, { error: V.passwordLower });

export const emailSchema = z
  .string(requiredOrType)
  .trim()
  .min(1, { error: V.required })
  .max(254, { error: V.tooLong })
  .pipe(z.email({ error: V.invalidEmail }));

/** Person names: free text, but no control characters or angle brackets. */
export const personNameSchema = z
  .string(requiredOrType)
  .trim()
  .min(1, { error: V.required })
  .max(128, { error: V.tooLong })
  .regex(/^[^<>\p{Cc}]*$/u, { error: V.forbiddenChars });

/** Phone numbers: optional; digits with the usual separators and an optional leading "+". */
export const phoneSchema = z
  .string({ error: V.invalidType })
  .trim()
  .max(32, { error: V.tooLong })
  .regex(/^(\+?[0-9][0-9 ()./-]{2,31})?$/, { error: V.invalidPhone })
  .nullish()
  .transform((v) => (v ? v : null));

/** A numeric path parameter; 400 naming the parameter when it is not a positive integer. */
/**
 * Forms hold text; the API takes JSON numbers and refuses numeric strings, booleans and null.
 * A form's resolver wraps a shared number schema with this to read a numeric text as the number
 * it shows (anything else, the empty text included, goes to the schema unchanged and is refused).
 */
/**
 * An absolute http(s) URL with a host and without credentials (webhook and stream receivers,
 * OpenID redirect URIs, an external provider's issuer). `fragment: false` also refuses `#…`.
 * Characters a browser would not keep literally (`<`, `>`) are refused.
 */
export function httpUrlSchema(opts: { fragment?: boolean } = {}) {
  return z
    .string(requiredOrType)
    .trim()
    .min(1, { error: V.required })
    .max(2048, { error: V.tooLong })
    .refine(
      (v) => {
        try {
          const u = new URL(v);
          return (u.protocol === "https:" || u.protocol === "http:") && !!u.hostname && !u.username && !u.password && (opts.fragment !== false || !u.hash) && !/[<>]/.test(v);
        } catch {
          return false;
        }
      },
      { error: V.invalidUrl },
    );
}

export function fromText<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (typeof v === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v), schema);
}

export function parseId(raw: string, field = "id"): number {
  if (!/^[1-9][0-9]{0,9}$/.test(raw) || Number(raw) > 2_147_483_647) throw badRequest("expected a valid number", field);
  return Number(raw);
}
