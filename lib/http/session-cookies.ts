import "server-only";
import { SESSION_COOKIE, SESSION_TTL_SECONDS, XSRF_COOKIE, xsrfTokenFor } from "../auth/session";
import { serializeCookie } from "./cookies";

/** Set-Cookie values for a new session: the HttpOnly session cookie and the readable XSRF token. */
export function sessionCookies(token: string): string[] {
  return [
    serializeCookie(SESSION_COOKIE, token, { httpOnly: true, sameSite: "Lax", maxAge: SESSION_TTL_SECONDS }),
    serializeCookie(XSRF_COOKIE, xsrfTokenFor(token), { httpOnly: false, sameSite: "Lax", maxAge: SESSION_TTL_SECONDS }),
  ];
}

export function clearedSessionCookies(): string[] {
  return [
    serializeCookie(SESSION_COOKIE, "", { httpOnly: true, maxAge: 0 }),
    serializeCookie(XSRF_COOKIE, "", { maxAge: 0 }),
  ];
}

export function withCookies(res: Response, cookies: string[]): Response {
  for (const c of cookies) res.headers.append("set-cookie", c);
  return res;
}

/** The enrolment session cookie; defguard's proxy uses this name, and `dg` keeps it between calls. */
export const ENROLLMENT_COOKIE = "defguard_proxy";
const ENROLLMENT_PATH = "/api/v1/enrollment";

export function enrollmentCookie(value: string, maxAge: number): string {
  return serializeCookie(ENROLLMENT_COOKIE, value, { httpOnly: true, sameSite: "Lax", maxAge, path: ENROLLMENT_PATH });
}

export function clearedEnrollmentCookie(): string {
  return serializeCookie(ENROLLMENT_COOKIE, "", { httpOnly: true, maxAge: 0, path: ENROLLMENT_PATH });
}

/** The password reset session cookie (defguard's proxy name), for /api/v1/password-reset. */
export const PASSWORD_RESET_COOKIE = "defguard_proxy_password_reset";
const PASSWORD_RESET_PATH = "/api/v1/password-reset";

export function passwordResetCookie(value: string, maxAge: number): string {
  return serializeCookie(PASSWORD_RESET_COOKIE, value, { httpOnly: true, sameSite: "Lax", maxAge, path: PASSWORD_RESET_PATH });
}

export function clearedPasswordResetCookie(): string {
  return serializeCookie(PASSWORD_RESET_COOKIE, "", { httpOnly: true, maxAge: 0, path: PASSWORD_RESET_PATH });
}
