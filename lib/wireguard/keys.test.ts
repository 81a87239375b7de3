import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateKeyPair, generatePresharedKey, isValidKey, publicKeyFromPrivate } from "./keys";

const WG = "/usr/bin/wg";
const hasWg = existsSync(WG);
if (!hasWg) console.log(`keys.test: ${WG} not found (install wireguard-tools), skipping the wg cross-check`);

const wg = (args: string[], input?: string) => execFileSync(WG, args, { input, encoding: "utf8" }).trim();
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 });

describe("isValidKey", () => {
  it("accepts standard base64 of 32 bytes", () => {
    fc.assert(
      fc.property(bytes32, (b) => {
        expect(isValidKey(b64(b))).toBe(true);
      }),
    );
  });

  it("rejects other lengths, url-safe alphabet, missing padding and non-canonical final symbols", () => {
    const good = b64(new Uint8Array(32).fill(0xfb)); // "+/v7..." uses both + and /
    expect(isValidKey(good)).toBe(true);
    expect(isValidKey(good.slice(0, 43))).toBe(false); // no padding
    expect(isValidKey(`${good}=`)).toBe(false);
    expect(isValidKey(good.replace(/\+/g, "-").replace(/\//g, "_"))).toBe(false);
    expect(isValidKey(` ${good}`)).toBe(false);
    expect(isValidKey(b64(new Uint8Array(31)))).toBe(false);
    expect(isValidKey(b64(new Uint8Array(33)))).toBe(false);
    expect(isValidKey(`${"A".repeat(42)}B=`)).toBe(false); // non-zero padding bits
    expect(isValidKey(`${"A".repeat(42)}E=`)).toBe(true);
    expect(isValidKey("")).toBe(false);
    expect(isValidKey(undefined as unknown as string)).toBe(false);
    fc.assert(
      fc.property(fc.string(), (s) => {
        expect(isValidKey(s)).toBe(s.length === 44 && Buffer.from(s, "base64").toString("base64") === s);
      }),
    );
  });
});

describe("key generation", () => {
  it("generates valid, distinct, clamped key pairs", () => {
    const a = generateKeyPair();
    const b = generateKeyPair();
    for (const k of [a.privateKey, a.publicKey, b.privateKey, b.publicKey]) {
      expect(k).toHaveLength(44);
      expect(isValidKey(k)).toBe(true);
    }
    expect(a.privateKey).not.toBe(b.privateKey);
    expect(publicKeyFromPrivate(a.privateKey)).toBe(a.publicKey);
    const raw = Buffer.from(a.privateKey, "base64");
    expect(raw[0] & 7).toBe(0);
    expect(raw[31] & 0xc0).toBe(0x40);
  });

  it("derives the RFC 7748 test vector", () => {
    // RFC 7748 §6.1 (Alice)
    const priv = Buffer.from("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a", "hex").toString("base64");
    const pub = Buffer.from("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a", "hex").toString("base64");
    expect(publicKeyFromPrivate(priv)).toBe(pub);
  });

  it("clamping the private key does not change the public key", () => {
    fc.assert(
      fc.property(bytes32, (b) => {
        const clamped = Buffer.from(b);
        clamped[0] &= 248;
        clamped[31] = (clamped[31] & 127) | 64;
        expect(publicKeyFromPrivate(b64(b))).toBe(publicKeyFromPrivate(b64(clamped)));
      }),
      { numRuns: 200 },
    );
  });

  it("publicKeyFromPrivate throws on invalid keys", () => {
    expect(() => publicKeyFromPrivate("nope")).toThrow(/invalid/);
    expect(() => publicKeyFromPrivate(b64(new Uint8Array(31)))).toThrow(/invalid/);
  });

  it("generates 32-byte preshared keys", () => {
    const psk = generatePresharedKey();
    expect(isValidKey(psk)).toBe(true);
    expect(Buffer.from(psk, "base64")).toHaveLength(32);
    expect(generatePresharedKey()).not.toBe(psk);
  });

  it.skipIf(!hasWg)("agrees with wg genkey / wg pubkey", () => {
    for (let i = 0; i < 5; i++) {
      const ours = generateKeyPair();
      expect(wg(["pubkey"], ours.privateKey)).toBe(ours.publicKey);
      const theirs = wg(["genkey"]);
      expect(isValidKey(theirs)).toBe(true);
      expect(publicKeyFromPrivate(theirs)).toBe(wg(["pubkey"], theirs));
      expect(isValidKey(wg(["genpsk"]))).toBe(true);
    }
    // unclamped random bytes too: both sides clamp
    const raw = b64(new Uint8Array(32).fill(0xff));
    expect(publicKeyFromPrivate(raw)).toBe(wg(["pubkey"], raw));
  });
});
