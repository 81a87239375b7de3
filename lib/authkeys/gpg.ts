import "server-only";
import { badRequest } from "../errors";

/**
 * OpenPGP public keys as exported by `gpg --armor --export` (RFC 4880 / RFC 9580): an ASCII-armored
 * "PUBLIC KEY BLOCK" whose checksum (when present) matches, holding exactly one certificate — a
 * primary public key able to sign, at least one user ID and at least one signature, optionally
 * subkeys. Key material is read field by field: RSA and DSA keys need at least 2048 bits, elliptic
 * curves must be known ones with points of the right size.
 */

export const MIN_GPG_RSA_BITS = 2048;
const MAX_ARMORED = 64 * 1024;
const BEGIN = "-----BEGIN PGP PUBLIC KEY BLOCK-----";
const END = "-----END PGP PUBLIC KEY BLOCK-----";

export const GPG_MSG = {
  armor: `not an ASCII-armored OpenPGP public key: expected a block from "${BEGIN}" to "${END}"`,
  size: "the GPG key is too large",
  base64: "the GPG key data is not valid base64",
  checksum: "the GPG key checksum does not match (the block was changed or cut)",
  parse: "the GPG key data is malformed",
  primary: "the GPG key block must start with a public key that can sign (not a secret key or a subkey)",
  single: "paste one GPG key at a time",
  version: "unsupported OpenPGP key version",
  algorithm: "unsupported GPG key algorithm",
  short: `RSA and DSA keys must have at least ${MIN_GPG_RSA_BITS} bits`,
  userId: "the GPG key has no user ID",
  signature: "the GPG key has no signature",
} as const;

const fail = (msg: string) => badRequest(msg, "key");

/** CRC-24 of RFC 4880 §6.1. */
function crc24(data: Buffer): number {
  let crc = 0xb704ce;
  for (const byte of data) {
    crc ^= byte << 16;
    for (let i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

function dearmor(text: string): Buffer {
  const lines = text.split(/\r?\n/).map((l) => l.trimEnd());
  if (lines[0] !== BEGIN || lines[lines.length - 1] !== END) throw fail(GPG_MSG.armor);
  let i = 1;
  // Armor headers ("Comment: …") up to the first empty line.
  while (i < lines.length - 1 && lines[i] !== "") {
    if (!/^[A-Za-z][A-Za-z0-9-]*: .*$/.test(lines[i])) break;
    i++;
  }
  if (lines[i] === "") i++;
  const body: string[] = [];
  let checksum: string | null = null;
  for (; i < lines.length - 1; i++) {
    const l = lines[i].trim();
    if (l === "") continue;
    if (l.startsWith("=") && i === lines.length - 2) checksum = l.slice(1);
    else if (/^[A-Za-z0-9+/]+={0,2}$/.test(l)) body.push(l);
    else throw fail(GPG_MSG.base64);
  }
  const joined = body.join("");
  if (!joined || joined.length % 4 !== 0) throw fail(GPG_MSG.base64);
  const data = Buffer.from(joined, "base64");
  if (data.toString("base64") !== joined) throw fail(GPG_MSG.base64);
  if (checksum !== null) {
    const sum = Buffer.from(checksum, "base64");
    if (checksum.length !== 4 || sum.length !== 3 || sum.readUIntBE(0, 3) !== crc24(data)) throw fail(GPG_MSG.checksum);
  }
  return data;
}

interface Packet {
  tag: number;
  body: Buffer;
}

/** Split into packets (old and new format headers, no partial lengths: keys never use them). */
function packets(data: Buffer): Packet[] {
  const out: Packet[] = [];
  let at = 0;
  const need = (n: number) => {
    if (at + n > data.length) throw fail(GPG_MSG.parse);
  };
  while (at < data.length) {
    const head = data[at++];
    if (!(head & 0x80)) throw fail(GPG_MSG.parse);
    let tag: number;
    let len: number;
    if (head & 0x40) {
      tag = head & 0x3f;
      need(1);
      const o1 = data[at++];
      if (o1 < 192) len = o1;
      else if (o1 < 224) {
        need(1);
        len = ((o1 - 192) << 8) + data[at++] + 192;
      } else if (o1 === 255) {
        need(4);
        len = data.readUInt32BE(at);
        at += 4;
      } else throw fail(GPG_MSG.parse);
    } else {
      tag = (head >> 2) & 0x0f;
      const lt = head & 0x03;
      if (lt === 3) throw fail(GPG_MSG.parse);
      const n = [1, 2, 4][lt];
      need(n);
      len = data.readUIntBE(at, n);
      at += n;
    }
    need(len);
    out.push({ tag, body: data.subarray(at, at + len) });
    at += len;
  }
  return out;
}

class Cursor {
  at = 0;
  constructor(readonly b: Buffer) {}
  take(n: number): Buffer {
    if (n < 0 || this.at + n > this.b.length) throw fail(GPG_MSG.parse);
    const out = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  byte(): number {
    return this.take(1)[0];
  }
  /** A multiprecision integer: its bit count, checked against the bytes that follow. */
  mpi(): number {
    const bits = this.take(2).readUInt16BE(0);
    const bytes = this.take(Math.ceil(bits / 8));
    if (bits === 0 || bytes.length === 0) throw fail(GPG_MSG.parse);
    const top = 32 - Math.clz32(bytes[0]);
    if ((bytes.length - 1) * 8 + top !== bits) throw fail(GPG_MSG.parse);
    return bits;
  }
  oid(): string {
    const len = this.byte();
    if (len === 0 || len === 0xff) throw fail(GPG_MSG.parse);
    return this.take(len).toString("hex");
  }
  done(): boolean {
    return this.at === this.b.length;
  }
}

/** Curve OIDs (hex of the DER content) and the size of their public points. */
const CURVES: Record<string, { point: number; prefix: number }> = {
  "2a8648ce3d030107": { point: 65, prefix: 0x04 }, // NIST P-256
  "2b81040022": { point: 97, prefix: 0x04 }, // NIST P-384
  "2b81040023": { point: 133, prefix: 0x04 }, // NIST P-521
  "2b2403030208010107": { point: 65, prefix: 0x04 }, // brainpoolP256r1
  "2b240303020801010b": { point: 97, prefix: 0x04 }, // brainpoolP384r1
  "2b240303020801010d": { point: 129, prefix: 0x04 }, // brainpoolP512r1
  "2b06010401da470f01": { point: 33, prefix: 0x40 }, // Ed25519 (legacy EdDSA)
  "2b060104019755010501": { point: 33, prefix: 0x40 }, // Curve25519 (legacy ECDH)
};

/** Algorithms of a primary key (one that certifies): RSA, RSA sign-only, DSA, ECDSA, EdDSA, Ed25519, Ed448. */
const SIGNING = new Set([1, 3, 17, 19, 22, 27, 28]);

function ecPoint(c: Cursor): void {
  const curve = CURVES[c.oid()];
  if (!curve) throw fail(GPG_MSG.algorithm);
  const bits = c.mpi();
  if (Math.ceil(bits / 8) !== curve.point) throw fail(GPG_MSG.parse);
  if (c.b[c.at - curve.point] !== curve.prefix) throw fail(GPG_MSG.parse);
}

/** Read one public (sub)key packet body; `primary` keys must be able to sign. */
function publicKey(body: Buffer, primary: boolean): void {
  const c = new Cursor(body);
  const version = c.byte();
  if (version !== 4 && version !== 6) throw fail(GPG_MSG.version);
  c.take(4); // creation time
  const algo = c.byte();
  if (version === 6) c.take(4); // length of the key material
  if (primary && !SIGNING.has(algo)) throw fail(GPG_MSG.primary);
  switch (algo) {
    case 1:
    case 2:
    case 3: {
      const n = c.mpi();
      c.mpi();
      if (n < MIN_GPG_RSA_BITS) throw fail(GPG_MSG.short);
      break;
    }
    case 17: {
      const p = c.mpi();
      c.mpi();
      c.mpi();
      c.mpi();
      if (p < MIN_GPG_RSA_BITS) throw fail(GPG_MSG.short);
      break;
    }
    case 16: // Elgamal (encryption subkeys only)
      c.mpi();
      c.mpi();
      c.mpi();
      break;
    case 18: {
      ecPoint(c);
      const kdf = c.take(c.byte());
      if (kdf.length !== 3 || kdf[0] !== 1) throw fail(GPG_MSG.parse);
      break;
    }
    case 19:
    case 22:
      ecPoint(c);
      break;
    case 25:
      c.take(32);
      break;
    case 26:
      c.take(56);
      break;
    case 27:
      c.take(32);
      break;
    case 28:
      c.take(57);
      break;
    default:
      throw fail(GPG_MSG.algorithm);
  }
  if (!c.done()) throw fail(GPG_MSG.parse);
}

const TAG = { signature: 2, secretKey: 5, publicKey: 6, secretSubkey: 7, userId: 13, publicSubkey: 14, userAttribute: 17, trust: 12 } as const;

/**
 * Validate an armored OpenPGP public key and answer it normalised (LF line ends, trailing
 * whitespace and blank lines around it removed). Throws 400 `{msg, field: "key"}`.
 */
export function parseGpgPublicKey(input: string): string {
  const text = input.replace(/\r\n/g, "\n").trim();
  if (text.length > MAX_ARMORED) throw fail(GPG_MSG.size);
  if (!text.startsWith(BEGIN) || !text.endsWith(END)) throw fail(GPG_MSG.armor);
  if (text.indexOf(BEGIN, 1) !== -1) throw fail(GPG_MSG.single);
  const list = packets(dearmor(text));
  if (!list.length || list[0].tag !== TAG.publicKey) throw fail(GPG_MSG.primary);
  let userIds = 0;
  let signatures = 0;
  for (const [i, p] of list.entries()) {
    switch (p.tag) {
      case TAG.publicKey:
        if (i !== 0) throw fail(GPG_MSG.single);
        publicKey(p.body, true);
        break;
      case TAG.publicSubkey:
        publicKey(p.body, false);
        break;
      case TAG.userId:
        userIds++;
        break;
      case TAG.signature:
        if (p.body.length < 4) throw fail(GPG_MSG.parse);
        signatures++;
        break;
      case TAG.userAttribute:
      case TAG.trust:
        break;
      case TAG.secretKey:
      case TAG.secretSubkey:
        throw fail(GPG_MSG.primary);
      default:
        throw fail(GPG_MSG.parse);
    }
  }
  if (!userIds) throw fail(GPG_MSG.userId);
  if (!signatures) throw fail(GPG_MSG.signature);
  return text
    .split("\n")
    .map((l) => l.trimEnd())
    .join("\n");
}
