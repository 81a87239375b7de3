/**
 * The text form of a WireGuard key, without any crypto: safe to import from the browser (the
 * device forms check keys with the same rule as the API).
 *
 * Standard base64 of exactly 32 bytes: 43 symbols then "=". 32 bytes fill only 4 bits of
 * the 43rd symbol, so its low two bits must be zero (A, E, I, ... w, 0, 4, 8); `wg`
 * rejects the non-canonical spellings too.
 */
const KEY_RE = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

export function isValidKey(key: string): boolean {
  return typeof key === "string" && KEY_RE.test(key);
}

/** The all-zero key (32 zero bytes): the point at infinity, never a usable peer key. */
const ALL_ZERO_KEY = `${"A".repeat(43)}=`;

/** A key a device or peer may use: well-formed and not the all-zero key. */
export function isValidPublicKey(key: string): boolean {
  return isValidKey(key) && key !== ALL_ZERO_KEY;
}
