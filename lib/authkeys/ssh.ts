import "server-only";
import { createPublicKey, type JsonWebKey } from "node:crypto";
import { badRequest } from "../errors";

/**
 * OpenSSH public keys (`authorized_keys` lines without options): `<type> <base64 blob> [comment]`.
 * The blob is parsed field by field (RFC 4253 §6.6, RFC 5656, RFC 8709, the OpenSSH security-key
 * formats); its type must equal the first word, nothing may follow its last field, and the key
 * itself is loaded by Node's crypto (so an EC point off its curve or a malformed RSA modulus is
 * refused). DSA keys and certificates are not accepted.
 */

export const SSH_KEY_TYPES = [
  "ssh-ed25519",
  "ssh-rsa",
  "ecdsa-sha2-nistp256",
  "ecdsa-sha2-nistp384",
  "ecdsa-sha2-nistp521",
  "sk-ssh-ed25519@openssh.com",
  "sk-ecdsa-sha2-nistp256@openssh.com",
] as const;

export const MIN_RSA_BITS = 2048;
const MAX_RSA_BITS = 16384;
const MAX_COMMENT = 256;

const CURVES: Record<string, { crv: string; coord: number }> = {
  nistp256: { crv: "P-256", coord: 32 },
  nistp384: { crv: "P-384", coord: 48 },
  nistp521: { crv: "P-521", coord: 66 },
};

export const SSH_MSG = {
  format: "not an OpenSSH public key: expected \"<type> <base64 key> [comment]\" on one line",
  type: `unsupported SSH key type: use one of ${SSH_KEY_TYPES.join(", ")}`,
  base64: "the key data is not valid base64",
  parse: "the SSH key data is malformed",
  mismatch: "the key type does not match the key data",
  rsaShort: `RSA keys must have at least ${MIN_RSA_BITS} bits`,
  rsaLong: `RSA keys may have at most ${MAX_RSA_BITS} bits`,
  comment: "the key comment is too long or contains control characters",
} as const;

class Reader {
  private at = 0;
  constructor(private readonly buf: Buffer) {}
  bytes(): Buffer {
    if (this.at + 4 > this.buf.length) throw badRequest(SSH_MSG.parse, "key");
    const len = this.buf.readUInt32BE(this.at);
    this.at += 4;
    if (len > this.buf.length - this.at) throw badRequest(SSH_MSG.parse, "key");
    const out = this.buf.subarray(this.at, this.at + len);
    this.at += len;
    return out;
  }
  text(): string {
    return this.bytes().toString("latin1");
  }
  /** An mpint as a positive big-endian integer without leading zero bytes. */
  mpint(): Buffer {
    const b = this.bytes();
    if (b.length === 0 || b[0] & 0x80) throw badRequest(SSH_MSG.parse, "key");
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    return b.subarray(i);
  }
  end(): void {
    if (this.at !== this.buf.length) throw badRequest(SSH_MSG.parse, "key");
  }
}

const b64url = (b: Buffer) => b.toString("base64url");

function load(jwk: JsonWebKey): void {
  try {
    createPublicKey({ key: jwk, format: "jwk" });
  } catch {
    throw badRequest(SSH_MSG.parse, "key");
  }
}

function bitLength(n: Buffer): number {
  return n.length === 0 ? 0 : (n.length - 1) * 8 + (32 - Math.clz32(n[0]));
}

function checkEcPoint(curveName: string, q: Buffer): void {
  const curve = CURVES[curveName];
  if (!curve || q.length !== 1 + 2 * curve.coord || q[0] !== 0x04) throw badRequest(SSH_MSG.parse, "key");
  load({ kty: "EC", crv: curve.crv, x: b64url(q.subarray(1, 1 + curve.coord)), y: b64url(q.subarray(1 + curve.coord)) });
}

function checkBlob(type: string, blob: Buffer): void {
  const r = new Reader(blob);
  if (r.text() !== type) throw badRequest(SSH_MSG.mismatch, "key");
  switch (type) {
    case "ssh-rsa": {
      const e = r.mpint();
      const n = r.mpint();
      r.end();
      const bits = bitLength(n);
      if (bits < MIN_RSA_BITS) throw badRequest(SSH_MSG.rsaShort, "key");
      if (bits > MAX_RSA_BITS) throw badRequest(SSH_MSG.rsaLong, "key");
      load({ kty: "RSA", n: b64url(n), e: b64url(e) });
      return;
    }
    case "ssh-ed25519":
    case "sk-ssh-ed25519@openssh.com": {
      const pk = r.bytes();
      if (type.startsWith("sk-") && !r.text().startsWith("ssh:")) throw badRequest(SSH_MSG.parse, "key");
      r.end();
      if (pk.length !== 32) throw badRequest(SSH_MSG.parse, "key");
      load({ kty: "OKP", crv: "Ed25519", x: b64url(pk) });
      return;
    }
    default: {
      // ecdsa-sha2-<curve> and sk-ecdsa-sha2-nistp256@openssh.com
      const curveName = r.text();
      const q = r.bytes();
      if (type.startsWith("sk-") && !r.text().startsWith("ssh:")) throw badRequest(SSH_MSG.parse, "key");
      r.end();
      const expected = type.startsWith("sk-") ? "nistp256" : type.slice("ecdsa-sha2-".length);
      if (curveName !== expected) throw badRequest(SSH_MSG.mismatch, "key");
      checkEcPoint(curveName, q);
    }
  }
}

/**
 * Validate an OpenSSH public key and answer it in the one-line form stored and served in
 * `authorized_keys` (single spaces, no trailing newline). Throws 400 `{msg, field: "key"}`.
 */
export function parseSshPublicKey(input: string): string {
  const text = input.replace(/[\r\n]+$/, "").trim();
  if (!text || /[\r\n]/.test(text)) throw badRequest(SSH_MSG.format, "key");
  const m = /^(\S+)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(text);
  if (!m) throw badRequest(SSH_MSG.format, "key");
  const [, type, data, rawComment] = m;
  if (!(SSH_KEY_TYPES as readonly string[]).includes(type)) throw badRequest(SSH_MSG.type, "key");
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(data) || data.length % 4 !== 0) throw badRequest(SSH_MSG.base64, "key");
  const blob = Buffer.from(data, "base64");
  if (blob.toString("base64") !== data) throw badRequest(SSH_MSG.base64, "key");
  checkBlob(type, blob);
  const comment = (rawComment ?? "").trim();
  if (comment.length > MAX_COMMENT || /\p{Cc}/u.test(comment)) throw badRequest(SSH_MSG.comment, "key");
  return comment ? `${type} ${data} ${comment}` : `${type} ${data}`;
}
