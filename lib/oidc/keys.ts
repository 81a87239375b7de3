import "server-only";
/**
 * Signing keys of the OpenID provider: one RS256 and one ES256 key in use, private JWKs
 * encrypted with the instance key. Rotation (an admin action) retires the keys in use and adds
 * new ones; retired keys stay in the JWKS until every token they signed has expired.
 */
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { getDb, getPool } from "../db";
import { decryptSecret, encryptSecret } from "../crypto";
import { recordActivity, type Actor } from "../activity/service";
import { transaction } from "../events";
import { oidcKeys } from "../db/schema";

/** ID tokens and access tokens live one hour: a retired key is published that long, plus a margin. */
export const TOKEN_TTL_SECONDS = 3600;
export const RETIRED_KEY_PUBLISHED_SECONDS = TOKEN_TTL_SECONDS + 300;

export type PrivateJwk = Record<string, unknown> & { kid: string; alg: string };

function newKey(alg: "RS256" | "ES256"): PrivateJwk {
  const pair =
    alg === "RS256" ? generateKeyPairSync("rsa", { modulusLength: 2048 }) : generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = pair.privateKey.export({ format: "jwk" }) as Record<string, unknown>;
  return { ...jwk, kid: randomUUID(), alg, use: "sig" };
}

function row(jwk: PrivateJwk) {
  return { kid: jwk.kid, alg: jwk.alg, privateJwk: encryptSecret(JSON.stringify(jwk)) };
}

/** Creates the first keys (once, whichever process gets there first). */
export async function ensureKeys(): Promise<void> {
  const { rows } = await getPool().query(`select 1 from oidc_keys where retired_at is null limit 1`);
  if (rows.length) return;
  await transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('oidc_keys'))`);
    const again = await tx.execute(sql`select 1 from oidc_keys where retired_at is null limit 1`);
    if (again.rows.length) return;
    await tx.insert(oidcKeys).values([row(newKey("RS256")), row(newKey("ES256"))]);
  });
}

/** Published keys, the ones in use first (oidc-provider signs with the first key of an algorithm). */
export async function loadKeys(): Promise<{ keys: PrivateJwk[]; version: string }> {
  const { rows } = await getPool().query<{ kid: string; private_jwk: string }>(
    `select kid, private_jwk from oidc_keys where unpublish_at is null or unpublish_at > now()
     order by (retired_at is null) desc, created_at desc, kid`,
  );
  return { keys: rows.map((r) => JSON.parse(decryptSecret(r.private_jwk)) as PrivateJwk), version: rows.map((r) => r.kid).join(",") };
}

/** The published key ids, cheaply (a changed list means another process rotated). */
export async function keysVersion(): Promise<string> {
  const { rows } = await getPool().query<{ kid: string }>(
    `select kid from oidc_keys where unpublish_at is null or unpublish_at > now() order by (retired_at is null) desc, created_at desc, kid`,
  );
  return rows.map((r) => r.kid).join(",");
}

/** POST /oauth/keys/rotate: new keys sign from now on; the old ones stay published until their tokens expired. */
export async function rotateKeys(actor: Actor): Promise<{ kids: string[] }> {
  const fresh = [newKey("RS256"), newKey("ES256")];
  await transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('oidc_keys'))`);
    await tx.execute(
      sql`update oidc_keys set retired_at = now(), unpublish_at = now() + make_interval(secs => ${RETIRED_KEY_PUBLISHED_SECONDS}) where retired_at is null`,
    );
    await tx.insert(oidcKeys).values(fresh.map(row));
    await recordActivity(tx, actor, { event: "open_id_keys_rotated", description: `OpenID signing keys rotated (${fresh.map((k) => k.alg).join(", ")})` });
  });
  return { kids: fresh.map((k) => k.kid) };
}
