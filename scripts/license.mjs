#!/usr/bin/env node
/**
 * Operator tool for offline licence keys (format: docs/licence.md).
 *
 *   node scripts/license.mjs keygen <private-key-file>
 *       Makes an Ed25519 key pair: the private key goes to the file (PKCS#8 PEM, mode 0600,
 *       never overwritten), the public key (raw, base64url) is printed. Put it in
 *       LICENCE_PUBLIC_KEY of lib/enterprise/licence.ts, or, for tests and air-gapped
 *       resellers, in DEFGUARD_LICENSE_EXTRA_PUBLIC_KEY.
 *
 *   node scripts/license.mjs sign <private-key-file> --customer NAME --valid-until YYYY-MM-DD
 *       [--tier business|enterprise] [--subscription] [--id ID]
 *       [--users N --devices N --locations N --network-devices N]
 *       Prints the licence key (one line). Without the four limits the licence is unlimited;
 *       with some of them, all four are required.
 *
 *   node scripts/license.mjs show <licence-key>
 *       Prints the payload of a key (without checking its signature).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const PREFIX = "DGL1";

/** The licence key for a payload, signed with a PKCS#8 PEM Ed25519 private key. */
export function signLicence(privateKeyPem, payload) {
  const body = Buffer.from(JSON.stringify({ v: 1, ...payload }), "utf8").toString("base64url");
  const signed = `${PREFIX}.${body}`;
  const signature = sign(null, Buffer.from(signed, "ascii"), createPrivateKey(privateKeyPem));
  return `${signed}.${signature.toString("base64url")}`;
}

/** The raw public key (base64url) of a PKCS#8 PEM Ed25519 private key. */
export function publicKeyOf(privateKeyPem) {
  return createPublicKey(createPrivateKey(privateKeyPem)).export({ format: "jwk" }).x;
}

function fail(msg) {
  console.error(`license: ${msg}`);
  process.exit(2);
}

function options(args) {
  const out = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith("--")) fail(`unexpected argument ${a}`);
    const name = a.slice(2);
    if (name === "subscription") out.subscription = true;
    else {
      if (i + 1 >= args.length) fail(`${a} needs a value`);
      out[name] = args[++i];
    }
  }
  return out;
}

function count(o, name) {
  const n = Number(o[name]);
  if (!Number.isInteger(n) || n < 0) fail(`--${name} must be a whole number`);
  return n;
}

function main(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === "keygen") {
    const file = rest[0] || fail("keygen <private-key-file>");
    if (existsSync(file)) fail(`${file} exists; refusing to overwrite a signing key`);
    const { privateKey } = generateKeyPairSync("ed25519");
    const pem = privateKey.export({ format: "pem", type: "pkcs8" });
    writeFileSync(file, pem, { mode: 0o600, flag: "wx" });
    console.log(publicKeyOf(pem));
    return;
  }
  if (cmd === "sign") {
    const file = rest[0] || fail("sign <private-key-file> --customer NAME --valid-until DATE ...");
    const o = options(rest.slice(1));
    if (!o.customer) fail("--customer is required");
    if (!o["valid-until"] || Number.isNaN(Date.parse(o["valid-until"]))) fail("--valid-until must be a date (YYYY-MM-DD or ISO 8601)");
    const tier = (o.tier ?? "business").toLowerCase();
    if (tier !== "business" && tier !== "enterprise") fail("--tier is business or enterprise");
    const limitNames = ["users", "devices", "locations", "network-devices"];
    const given = limitNames.filter((n) => o[n] !== undefined);
    if (given.length && given.length !== 4) fail("give all four limits (--users --devices --locations --network-devices) or none");
    const payload = {
      id: o.id ?? randomUUID(),
      customer: o.customer,
      tier: tier === "enterprise" ? "Enterprise" : "Business",
      subscription: !!o.subscription,
      valid_until: new Date(o["valid-until"]).toISOString(),
      limits: given.length
        ? { users: count(o, "users"), devices: count(o, "devices"), locations: count(o, "locations"), network_devices: count(o, "network-devices") }
        : null,
      issued_at: new Date().toISOString(),
    };
    console.log(signLicence(readFileSync(file, "utf8"), payload));
    return;
  }
  if (cmd === "show") {
    const parts = (rest[0] || fail("show <licence-key>")).trim().split(".");
    if (parts.length !== 3 || parts[0] !== PREFIX) fail("not a licence key");
    console.log(JSON.stringify(JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8")), null, 2));
    return;
  }
  fail("usage: license.mjs keygen <file> | sign <file> --customer ... | show <key>");
}

if (import.meta.url === `file://${process.argv[1]}`) main(process.argv.slice(2));
