import "server-only";
import { generate, generateSecret, generateURI } from "otplib";
import { safeEqual } from "../crypto";

export const TOTP_PERIOD = 30;

export function newTotpSecret(): string {
  return generateSecret();
}

export function totpUri(secret: string, issuer: string, label: string): string {
  return generateURI({ issuer, label, secret });
}

export function currentStep(nowMs = Date.now()): number {
  return Math.floor(nowMs / 1000 / TOTP_PERIOD);
}

export async function totpCodeAt(secret: string, step: number): Promise<string> {
  return generate({ secret, epoch: step * TOTP_PERIOD });
}

/**
 * The time step a code belongs to, accepting the current step and one either side (clock
 * drift), or null. Callers compare it with the last accepted step to refuse replays.
 */
export async function matchTotpStep(secret: string, code: string, nowMs = Date.now()): Promise<number | null> {
  const now = currentStep(nowMs);
  let found: number | null = null;
  // Check all three windows every time so timing does not tell which one matched.
  for (const step of [now - 1, now, now + 1]) {
    if (safeEqual(await totpCodeAt(secret, step), code) && found === null) found = step;
  }
  return found;
}
