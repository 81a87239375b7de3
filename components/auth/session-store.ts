/**
 * Session store: the signed-in user, pending OpenID authorization parameters and
 * the location to return to after sign-in. Kept in sessionStorage so it survives reloads of
 * this tab only; the server session (cookie) stays the authority.
 */
import type { UserInfo } from "@/lib/api/types";

export interface SessionState {
  user?: UserInfo;
  openIdParams?: Record<string, string>;
  authLocation?: string;
}

const KEY = "defguard.session";

function read(): SessionState {
  try {
    const raw = sessionStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as SessionState) : {};
  } catch {
    return {};
  }
}

export function getSession(): SessionState {
  return typeof window === "undefined" ? {} : read();
}

export function updateSession(patch: Partial<SessionState>): void {
  try {
    sessionStorage.setItem(KEY, JSON.stringify({ ...read(), ...patch }));
  } catch {
    // Storage unavailable (private mode quota): the query cache still holds the user.
  }
}

export function resetSession(): void {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing stored.
  }
}
