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

/** A secret or configuration problem the operator fixes from one line (printed without a stack). */
export class SecretsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretsError";
  }
}

/** Shortest secret accepted in production mode (32 characters: `openssl rand -hex 32` gives 64). */
export const MIN_SECRET_LENGTH = 32;

export interface ResolveOptions {
  /**
   * NODE_ENV=production with an external database (DATABASE_URL): secrets are never generated,
   * because every console process over that database must hold the same ones (a key made up
   * by one replica cannot read what another encrypted). They come from the environment, or
   * from a secrets.json an earlier start left in the data directory.
   */
  strict?: boolean;
}

/** Production mode and an external database: see ResolveOptions.strict. */
export function strictSecrets(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.NODE_ENV === "production" && !!env.DATABASE_URL;
}

/**
 * Resolve the server secrets: environment first, otherwise generated once and kept in
 * <dataDir>/secrets.json with 0600 permissions. Returns the embedded database password too.
 */
export function resolveSecrets(dir = dataDir(), opts: ResolveOptions = {}): SecretsFile {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, "secrets.json");
  let stored: SecretsFile = {};
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, "utf8")) as SecretsFile;
      if (!stored || typeof stored !== "object" || Array.isArray(stored)) throw new Error("not a JSON object");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code) throw err;
      throw new SecretsError(`${file} is not valid JSON (${(err as Error).message}); restore it from a backup, or move it away to generate new secrets (data encrypted with the old key is then lost)`);
    }
  }
  if (opts.strict) {
    const missing = (Object.keys(SECRET_NAMES) as SecretName[]).filter((n) => !process.env[SECRET_NAMES[n]] && !stored[n]).map((n) => SECRET_NAMES[n]);
    if (missing.length)
      throw new SecretsError(
        `production mode (NODE_ENV=production) with an external database needs ${missing.join(", ")} set, the same on every console process; generate each with \`openssl rand -hex 32\``,
      );
    const short = (Object.keys(SECRET_NAMES) as SecretName[]).filter((n) => (process.env[SECRET_NAMES[n]] ?? "").length > 0 && process.env[SECRET_NAMES[n]]!.length < MIN_SECRET_LENGTH).map((n) => SECRET_NAMES[n]);
    if (short.length) throw new SecretsError(`${short.join(", ")} too short for production mode: at least ${MIN_SECRET_LENGTH} characters (\`openssl rand -hex 32\`)`);
  }
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
  if (!stored.embeddedDbPassword && !opts.strict) {
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
