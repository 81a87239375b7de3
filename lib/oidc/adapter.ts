import "server-only";
/**
 * oidc-provider storage on PostgreSQL: every model (codes, tokens, grants, interactions,
 * sessions) is one row of oidc_payloads keyed by (model, id), so a flow started on one console
 * process can be finished on another. Clients come from oauth2_clients (enabled ones only).
 */
import { getPool } from "../db";
import { clientMetadata } from "./clients";

type Payload = Record<string, unknown> & { grantId?: string; uid?: string; userCode?: string; accountId?: string; clientId?: string; consumed?: number };

export class PgAdapter {
  constructor(private readonly model: string) {}

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    if (this.model === "Client") throw new Error("clients are managed through the OpenID apps API");
    await getPool().query(
      `insert into oidc_payloads (model, id, payload, grant_id, uid, user_code, account_id, client_id, expires_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, case when $9::int is null then null else now() + make_interval(secs => $9::int) end)
       on conflict (model, id) do update set payload = excluded.payload, grant_id = excluded.grant_id, uid = excluded.uid,
         user_code = excluded.user_code, account_id = excluded.account_id, client_id = excluded.client_id, expires_at = excluded.expires_at`,
      [
        this.model,
        id,
        JSON.stringify(payload),
        payload.grantId ?? null,
        payload.uid ?? null,
        payload.userCode ?? null,
        payload.accountId ?? null,
        payload.clientId ?? null,
        expiresIn ?? null,
      ],
    );
  }

  private async one(where: string, value: string): Promise<Payload | undefined> {
    const { rows } = await getPool().query<{ payload: Payload; consumed: number | null }>(
      `select payload, extract(epoch from consumed_at)::int as consumed from oidc_payloads
       where model = $1 and ${where} = $2 and (expires_at is null or expires_at > now())`,
      [this.model, value],
    );
    if (!rows[0]) return undefined;
    return rows[0].consumed ? { ...rows[0].payload, consumed: rows[0].consumed } : rows[0].payload;
  }

  async find(id: string): Promise<Payload | undefined> {
    if (this.model === "Client") return (await clientMetadata(id)) ?? undefined;
    return this.one("id", id);
  }

  async findByUid(uid: string) {
    return this.one("uid", uid);
  }

  async findByUserCode(userCode: string) {
    return this.one("user_code", userCode);
  }

  async consume(id: string): Promise<void> {
    await getPool().query(`update oidc_payloads set consumed_at = now() where model = $1 and id = $2`, [this.model, id]);
  }

  async destroy(id: string): Promise<void> {
    await getPool().query(`delete from oidc_payloads where model = $1 and id = $2`, [this.model, id]);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await getPool().query(`delete from oidc_payloads where grant_id = $1`, [grantId]);
  }
}

/** Drop everything issued to a user for one app (consent revoked, app deleted or secret changed). */
export async function revokeIssued(where: { accountId?: string; clientId: string }): Promise<void> {
  if (where.accountId) {
    await getPool().query(`delete from oidc_payloads where account_id = $1 and client_id = $2`, [where.accountId, where.clientId]);
  } else {
    await getPool().query(`delete from oidc_payloads where client_id = $1`, [where.clientId]);
  }
}

/** Expired rows (the provider never reads them; a job may call this). */
export async function pruneExpired(): Promise<number> {
  const r = await getPool().query(`delete from oidc_payloads where expires_at < now() - interval '1 day'`);
  return r.rowCount ?? 0;
}
