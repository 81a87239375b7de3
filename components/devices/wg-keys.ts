/**
 * WireGuard keys made in the browser: an x25519 key pair whose private half never leaves the
 * page. WebCrypto's X25519 is used where the browser has it (Chromium, Firefox, Safari 17+);
 * otherwise a small BigInt implementation of RFC 7748 (below) does the same job.
 *
 * Keys are the standard base64 text WireGuard uses (32 bytes, 44 characters, "=" padded).
 */

import { isValidKey as isValidKeyText } from "@/lib/wireguard/key-format";

export interface WgKeyPair {
  privateKey: string;
  publicKey: string;
}

/** The server's key rule (lib/wireguard/key-format.ts), ignoring surrounding blanks. */
export function isValidKey(key: string): boolean {
  return typeof key === "string" && isValidKeyText(key.trim());
}

export function bytesToBase64(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

export function base64ToBytes(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

// ---------------------------------------------------------------------------------------
// RFC 7748 x25519 with BigInt (the fallback). Not constant-time: BigInt arithmetic never is.
// It only runs where the browser lacks WebCrypto X25519, on a key made for one device.

const P = 2n ** 255n - 19n;
const A24 = 121665n;

const MASK = (1n << 255n) - 1n;

const mod = (a: bigint) => {
  const r = a % P;
  return r >= 0n ? r : r + P;
};

/** Reduction of a non-negative product (< 2^512) using 2^255 ≡ 19 (mod p): faster than %. */
function red(x: bigint): bigint {
  let r = (x & MASK) + 19n * (x >> 255n);
  r = (r & MASK) + 19n * (r >> 255n);
  return r >= P ? r - P : r;
}

function powMod(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = mod(base);
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = red(result * b);
    b = red(b * b);
    e >>= 1n;
  }
  return result;
}

function decodeLittleEndian(bytes: Uint8Array): bigint {
  let n = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(bytes[i]);
  return n;
}

function encodeLittleEndian(n: bigint): Uint8Array {
  const out = new Uint8Array(32);
  let v = n;
  for (let i = 0; i < 32; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** RFC 7748 §5: clear the 3 low bits, clear the top bit, set the second-highest bit. */
export function clampScalar(k: Uint8Array): Uint8Array {
  const c = Uint8Array.from(k);
  c[0] &= 248;
  c[31] &= 127;
  c[31] |= 64;
  return c;
}

/** x25519(k, u): the u-coordinate of k·u on Curve25519 (RFC 7748 §5, Montgomery ladder). */
export function x25519(scalar: Uint8Array, uCoordinate: Uint8Array): Uint8Array {
  if (scalar.length !== 32 || uCoordinate.length !== 32) throw new Error("x25519 takes 32-byte inputs");
  const k = decodeLittleEndian(clampScalar(scalar));
  const uBytes = Uint8Array.from(uCoordinate);
  uBytes[31] &= 127; // the top bit of u is ignored
  const x1 = mod(decodeLittleEndian(uBytes));

  let x2 = 1n;
  let z2 = 0n;
  let x3 = x1;
  let z3 = 1n;
  let swap = 0;
  for (let t = 254; t >= 0; t--) {
    const kt = Number((k >> BigInt(t)) & 1n);
    swap ^= kt;
    if (swap) [x2, x3, z2, z3] = [x3, x2, z3, z2];
    swap = kt;

    // Sums stay below 2p and products are reduced once; differences add p to stay positive.
    const a = x2 + z2;
    const aa = red(a * a);
    const b = x2 - z2 + P;
    const bb = red(b * b);
    const e = aa - bb + P;
    const c = x3 + z3;
    const d = x3 - z3 + P;
    const da = red(d * a);
    const cb = red(c * b);
    const sum = da + cb;
    const diff = da - cb + P;
    x3 = red(sum * sum);
    z3 = red(x1 * red(diff * diff));
    x2 = red(aa * bb);
    z2 = red(e * (aa + A24 * e));
  }
  if (swap) [x2, z2] = [x3, z3];
  return encodeLittleEndian(red(x2 * powMod(z2, P - 2n)));
}

const BASE_POINT = (() => {
  const u = new Uint8Array(32);
  u[0] = 9;
  return u;
})();

/** The public key of a private key (both base64), with the pure implementation. */
export function publicKeyFromPrivatePure(privateKey: string): string {
  if (!isValidKey(privateKey)) throw new Error("invalid WireGuard private key");
  return bytesToBase64(x25519(base64ToBytes(privateKey.trim()), BASE_POINT));
}

/** A key pair from 32 random bytes, with the pure implementation. */
export function generateKeyPairPure(random: Uint8Array = crypto.getRandomValues(new Uint8Array(32))): WgKeyPair {
  const privateKey = bytesToBase64(clampScalar(random));
  return { privateKey, publicKey: publicKeyFromPrivatePure(privateKey) };
}

// ---------------------------------------------------------------------------------------
// WebCrypto

let webCryptoX25519: Promise<boolean> | undefined;

/** Whether this browser can generate and export X25519 keys with WebCrypto (checked once). */
export function hasWebCryptoX25519(): Promise<boolean> {
  webCryptoX25519 ??= (async () => {
    try {
      if (typeof crypto === "undefined" || !crypto.subtle) return false;
      const pair = (await crypto.subtle.generateKey({ name: "X25519" }, true, ["deriveBits"])) as CryptoKeyPair;
      return !!pair.publicKey && !!pair.privateKey;
    } catch {
      return false;
    }
  })();
  return webCryptoX25519;
}

/** An x25519 key pair made with WebCrypto: raw public key, last 32 bytes of the PKCS#8 private key. */
export async function generateKeyPairWebCrypto(): Promise<WgKeyPair> {
  const pair = (await crypto.subtle.generateKey({ name: "X25519" }, true, ["deriveBits"])) as CryptoKeyPair;
  const pub = new Uint8Array(await crypto.subtle.exportKey("raw", pair.publicKey));
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  // x25519 clamps the scalar itself, so storing the clamped form (as `wg genkey` prints it)
  // keeps the same public key.
  const privateKey = bytesToBase64(clampScalar(pkcs8.slice(pkcs8.length - 32)));
  return { privateKey, publicKey: bytesToBase64(pub) };
}

/**
 * A WireGuard key pair made in this browser: WebCrypto X25519 when available, the RFC 7748
 * implementation otherwise. The private key is for the caller to show once; it is never sent.
 */
export async function generateKeyPair(): Promise<WgKeyPair> {
  if (await hasWebCryptoX25519()) {
    try {
      return await generateKeyPairWebCrypto();
    } catch {
      // Fall through to the pure implementation.
    }
  }
  return generateKeyPairPure();
}

/** The config text with the server's private key placeholder replaced by the real key. */
export const PRIVATE_KEY_PLACEHOLDER = "YOUR_PRIVATE_KEY";

export function withPrivateKey(config: string, privateKey: string | null | undefined): string {
  if (!privateKey) return config;
  return config.replace(/^(\s*PrivateKey\s*=\s*)YOUR_PRIVATE_KEY\s*$/m, `$1${privateKey}`);
}
