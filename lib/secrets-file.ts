import "server-only";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dataDir, SECRET_NAMES, type SecretName } from "./config";

/* Server start-up only (never imported by route handlers): file access for generated secrets. */

export interface SecretsFile {
  secretKey?: string;
  gatewaySecret?: string;
  workerSecret?: string;
  encryptionKey?: string;
  embeddedDbPassword?: string;
}

/**
 * Resolve the server secrets: environment first, otherwise generated once and kept in
 * <dataDir>/secrets.json with 0600 permissions. Returns the embedded database password too.
 */
export function resolveSecrets(dir = dataDir()): SecretsFile {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "secrets.json");
  let stored: SecretsFile = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, "utf8")) as SecretsFile;
  let changed = false;
  const gen = () => randomBytes(32).toString("base64url");
  for (const name of Object.keys(SECRET_NAMES) as SecretName[]) {
    const env = process.env[SECRET_NAMES[name]];
    if (env) continue;
    if (!stored[name]) {
      stored[name] = gen();
      changed = true;
    }
    process.env[SECRET_NAMES[name]] = stored[name];
  }
  if (!stored.embeddedDbPassword) {
    stored.embeddedDbPassword = gen();
    changed = true;
  }
  if (changed || !existsSync(file)) writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
  // The values in effect: environment first (never written to the file), then the stored ones.
  const effective: SecretsFile = { embeddedDbPassword: stored.embeddedDbPassword };
  for (const name of Object.keys(SECRET_NAMES) as SecretName[]) effective[name] = process.env[SECRET_NAMES[name]];
  return effective;
}
