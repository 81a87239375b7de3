import { createPrivateKey, createPublicKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  base64ToBytes,
  bytesToBase64,
  generateKeyPair,
  generateKeyPairPure,
  generateKeyPairWebCrypto,
  hasWebCryptoX25519,
  isValidKey,
  publicKeyFromPrivatePure,
  withPrivateKey,
  x25519,
} from "./wg-keys";

const hex = (s: string) => Uint8Array.from(s.match(/../g)!.map((b) => parseInt(b, 16)));
const toHex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

/** Reference: the public key node:crypto (OpenSSL) derives from a raw private key. */
function nodePublicKey(privateKey: string): string {
  const der = Buffer.concat([Buffer.from("302e020100300506032b656e04220420", "hex"), Buffer.from(privateKey, "base64")]);
  const spki = createPublicKey(createPrivateKey({ key: der, format: "der", type: "pkcs8" })).export({ format: "der", type: "spki" });
  return spki.subarray(spki.length - 32).toString("base64");
}

describe("x25519 (RFC 7748)", () => {
  it("reproduces the §5.2 scalar multiplication vectors", () => {
    expect(
      toHex(
        x25519(
          hex("a546e36bf0527c9d3b16154b82465edd62144c0ac1fc5a18506a2244ba449ac4"),
          hex("e6db6867583030db3594c1a424b15f7c726624ec26b3353b10a903a6d0ab1c4c"),
        ),
      ),
    ).toBe("c3da55379de9c6908e94ea4df28d084f32eccf03491c71f754b4075577a28552");
    expect(
      toHex(
        x25519(
          hex("4b66e9d4d1b4673c5ad22691957d6af5c11b6421e0ea01d42ca4169e7918ba0d"),
          hex("e5210f12786811d3f4b7959d0538ae2c31dbe7106fc03c3efc4cd549c715a493"),
        ),
      ),
    ).toBe("95cbde9476e8907d7aade45cb4b873f88b595a68799fa152e6f8f7647aac7957");
  });

  it("reproduces the §5.2 iterated vectors (1 and 1,000 iterations)", () => {
    let k: Uint8Array = hex("0900000000000000000000000000000000000000000000000000000000000000");
    let u: Uint8Array = k;
    for (let i = 1; i <= 1000; i++) {
      const r = x25519(k, u);
      u = k;
      k = r;
      if (i === 1) expect(toHex(k)).toBe("422c8e7a6227d7bca1350b3e2bb7279f7897b87bb6854b783c60e80311ae3079");
    }
    expect(toHex(k)).toBe("684cf59ba83309552800ef566f2f4d3c1c3887c49360e3875f2eb94d99532c51");
  }, 120_000);

  it("reproduces the §6.1 Diffie-Hellman example", () => {
    const alicePrivate = hex("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    const bobPrivate = hex("5dab087e624a8a4b79e17f8b83800ee66f3bb1292618b6fd1c2f8b27ff88e0eb");
    const nine = hex("0900000000000000000000000000000000000000000000000000000000000000");
    const alicePublic = x25519(alicePrivate, nine);
    const bobPublic = x25519(bobPrivate, nine);
    expect(toHex(alicePublic)).toBe("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a");
    expect(toHex(bobPublic)).toBe("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f");
    const shared = "4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742";
    expect(toHex(x25519(alicePrivate, bobPublic))).toBe(shared);
    expect(toHex(x25519(bobPrivate, alicePublic))).toBe(shared);
  });

  it("rejects inputs that are not 32 bytes", () => {
    expect(() => x25519(new Uint8Array(31), new Uint8Array(32))).toThrow();
  });
});

describe("WireGuard key pairs", () => {
  it("the pure implementation agrees with OpenSSL on random keys", () => {
    for (let i = 0; i < 20; i++) {
      const pair = generateKeyPairPure();
      expect(isValidKey(pair.privateKey)).toBe(true);
      expect(isValidKey(pair.publicKey)).toBe(true);
      expect(pair.publicKey).toBe(nodePublicKey(pair.privateKey));
    }
  });

  it("clamps generated private keys like `wg genkey`", () => {
    const bytes = base64ToBytes(generateKeyPairPure(new Uint8Array(32).fill(255)).privateKey);
    expect(bytes[0] & 7).toBe(0);
    expect(bytes[31] & 128).toBe(0);
    expect(bytes[31] & 64).toBe(64);
  });

  it("WebCrypto X25519 (where present) gives pairs the pure implementation confirms", async () => {
    if (!(await hasWebCryptoX25519())) return;
    for (let i = 0; i < 5; i++) {
      const pair = await generateKeyPairWebCrypto();
      expect(isValidKey(pair.privateKey)).toBe(true);
      expect(publicKeyFromPrivatePure(pair.privateKey)).toBe(pair.publicKey);
      expect(nodePublicKey(pair.privateKey)).toBe(pair.publicKey);
    }
  });

  it("generateKeyPair gives distinct, consistent pairs", async () => {
    const a = await generateKeyPair();
    const b = await generateKeyPair();
    expect(a.privateKey).not.toBe(b.privateKey);
    expect(publicKeyFromPrivatePure(a.privateKey)).toBe(a.publicKey);
  });

  it("validates the 44-character base64 form", () => {
    expect(isValidKey(bytesToBase64(new Uint8Array(32)))).toBe(true);
    expect(isValidKey("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB=")).toBe(false); // non-canonical last symbol
    expect(isValidKey("AAAA")).toBe(false);
    expect(isValidKey(`${"A".repeat(43)}`)).toBe(false);
  });
});

describe("withPrivateKey", () => {
  const config = "[Interface]\nPrivateKey = YOUR_PRIVATE_KEY\nAddress = 10.0.0.2\n\n[Peer]\nPublicKey = x\n";
  it("puts the key in place of the placeholder", () => {
    expect(withPrivateKey(config, "KEY=")).toContain("PrivateKey = KEY=\n");
    expect(withPrivateKey(config, "KEY=")).not.toContain("YOUR_PRIVATE_KEY");
  });
  it("keeps the placeholder without a key", () => {
    expect(withPrivateKey(config, null)).toBe(config);
  });
});
