import "server-only";
import { sql } from "drizzle-orm";
import type { Tx } from "../db";
import type { DomainEvent } from "../events";

/** defguard's x-defguard-event names of the user events webhooks subscribe to. */
export type WebhookEvent = "user_created" | "user_modified" | "user_deleted" | "user_keys";

function webhookEventOf(e: DomainEvent): WebhookEvent | null {
  switch (e.type) {
    case "user.created":
      return "user_created";
    case "user.modified":
    case "user.enabled":
    case "user.disabled":
      return "user_modified";
    case "user.deleted":
      return "user_deleted";
    case "user.keys":
      return "user_keys";
    default:
      return null;
  }
}

/**
 * Queue one webhook delivery per enabled webhook subscribed to each user event, with the
 * transaction of the change (called by transaction() of lib/events just before the commit).
 * The body is defguard's: the UserInfo of the user (as the users list serves it) for
 * user_created / user_modified, `{"username"}` for user_deleted, `{username, email, ssh_key,
 * pgp_key, serial}` for user_keys (a provisioned YubiKey). Returns the rows queued.
 * One statement, whatever the number of events; events repeated in one transaction are sent once.
 */
export async function enqueueWebhookDeliveries(tx: Tx, events: DomainEvent[]): Promise<number> {
  const seen = new Set<string>();
  const kinds: string[] = [];
  const ids: number[] = [];
  const names: string[] = [];
  const bodies: (string | null)[] = [];
  for (const e of events) {
    const kind = webhookEventOf(e);
    if (!kind || !("userId" in e) || !("username" in e)) continue;
    const body = e.type === "user.keys" ? JSON.stringify(e.keys) : null;
    const key = `${kind}\n${e.userId}\n${body ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    kinds.push(kind);
    ids.push(e.userId);
    names.push(e.username);
    bodies.push(body);
  }
  if (!kinds.length) return 0;
  const r = await tx.execute(sql`
    insert into outbox (kind, target_id, event, payload)
    select 'webhook', w.id, e.event,
           case when e.event = 'user_deleted' then json_build_object('username', e.username)::text
                when e.event = 'user_keys' then e.body else j.body end
      from unnest(${sql.param(kinds)}::text[], ${sql.param(ids)}::int[], ${sql.param(names)}::text[], ${sql.param(bodies)}::text[]) with ordinality as e(event, user_id, username, body, ord)
      join webhooks w on w.enabled and case e.event when 'user_created' then w.on_user_created
                                                    when 'user_modified' then w.on_user_modified
                                                    when 'user_deleted' then w.on_user_deleted
                                                    else w.on_hwkey_provision end
      left join users_list_json j on j.user_id = e.user_id and e.event not in ('user_deleted', 'user_keys')
     where e.event in ('user_deleted', 'user_keys') or j.body is not null
     order by e.ord, w.id`);
  return r.rowCount ?? 0;
}
