/**
 * WireGuard keys: Curve25519 (x25519) key pairs and preshared keys, in the standard base64
 * text form WireGuard uses (44 characters, "=" padded).
 */
import { createPrivateKey, createPublicKey, randomBytes } from "node:crypto";
import { isValidKey } from "./key-format";

export { isValidKey };

/** DER prefix of a PKCS#8 X25519 private key; the 32 raw key bytes follow it. */
const PKCS8_X25519_PREFIX = Buffer.from("302e020100300506032b656e04220420", "hex");


export function publicKeyFromPrivate(privateKey: string): string {
  if (!isValidKey(privateKey)) throw new Error("invalid WireGuard private key");
  const der = Buffer.concat([PKCS8_X25519_PREFIX, Buffer.from(privateKey, "base64")]);
  // X25519 clamps the scalar itself (RFC 7748), exactly like `wg pubkey`, so unclamped
  // private keys give the same public key as their clamped form.
  const spki = createPublicKey(createPrivateKey({ key: der, format: "der", type: "pkcs8" })).export({
    format: "der",
    type: "spki",
  });
  return spki.subarray(spki.length - 32).toString("base64");
}

/** x25519 key pair with node:crypto; both base64 (standard, with padding, 44 chars) as WireGuard uses. */
export function generateKeyPair(): { privateKey: string; publicKey: string } {
  const raw = randomBytes(32);
  // Clamp like `wg genkey` so the stored private key is in its canonical form.
  raw[0] &= 248;
  raw[31] = (raw[31] & 127) | 64;
  const privateKey = raw.toString("base64");
  return { privateKey, publicKey: publicKeyFromPrivate(privateKey) };
}

/** 32 random bytes, base64 (what `wg genpsk` prints). */
export function generatePresharedKey(): string {
  return randomBytes(32).toString("base64");
}
