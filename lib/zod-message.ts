import type { z } from "zod";
import en from "../messages/en.json";

const validationText = (en as { validation: Record<string, string> }).validation;

/**
 * Turn a zod error into "field: message" with the message key mapped to English: the `msg`
 * and `field` of a 400 answer (lib/http/route.ts), also used by services that validate a
 * value they built themselves (lib/locations/import.ts).
 */
export function zodMessage(err: z.ZodError, root?: string): { msg: string; field: string } {
  const issue = err.issues[0];
  const path = issue.path.map(String).join(".") || root || "body";
  const text = validationText[issue.message] ?? issue.message;
  return { msg: `${path}: ${text}`, field: path };
}
