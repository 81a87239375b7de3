/**
 * The API answers validation errors in English by looking the zod message key up under
 * `validation.` in messages/en.json (lib/http/route.ts). A key without a text would reach
 * clients as a bare key. (Key parity between en/ko/pl is app/messages.test.ts.)
 */
import { describe, expect, it } from "vitest";
import en from "@/messages/en.json";
import { V } from "@/lib/validation";

describe("validation messages", () => {
  it("has an English text for every shared validation key", () => {
    const texts = (en as unknown as { validation: Record<string, string> }).validation;
    const missing = Object.values(V).filter((key) => !texts[key]?.trim());
    expect(missing).toEqual([]);
  });
});
