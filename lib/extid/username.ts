/**
 * A console username from what an external provider says about a person, following the
 * "username handling" setting. Usernames here are 1-63 characters of [A-Za-z0-9._-] starting
 * with a letter or digit (docs/api.md).
 */
export type UsernameHandling = "RemoveForbidden" | "ReplaceForbidden" | "PruneEmailDomain";

const MAX = 63;
const allowed = (c: string) => /^[A-Za-z0-9._-]$/.test(c);

export function usernameFrom(raw: string, handling: UsernameHandling): string {
  // Whatever comes first that is not a letter or digit goes: a username starts with one.
  let s = raw.replace(/^[^A-Za-z0-9]+/, "");
  if (handling === "PruneEmailDomain") {
    const at = s.indexOf("@");
    if (at >= 0) s = s.slice(0, at);
  }
  const chars = [...s];
  s = handling === "RemoveForbidden" ? chars.filter(allowed).join("") : chars.map((c) => (allowed(c) ? c : "_")).join("");
  return s.slice(0, MAX);
}

/** The claim a username is taken from: `preferred_username`, else the e-mail address. */
export function usernameSource(claims: Record<string, unknown>): string | null {
  if (typeof claims.preferred_username === "string" && claims.preferred_username.trim()) return claims.preferred_username.trim();
  if (typeof claims.email === "string" && claims.email.includes("@")) return claims.email.split("@")[0];
  return null;
}
