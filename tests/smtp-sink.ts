/**
 * The SMTP sink of the end-to-end specs (e2e/smtp-sink.ts: a local `smtp-server` that keeps
 * every message's raw text), plus pointing the test database's SMTP settings at it.
 */
import { query } from "./helpers";
import type { SmtpSink } from "../e2e/smtp-sink";

export { startSmtpSink, type SmtpSink, type SunkMail } from "../e2e/smtp-sink";

/** Point the console's SMTP settings at the sink (plain SMTP on loopback). */
export async function useSmtpSink(sink: SmtpSink): Promise<void> {
  await query("insert into settings (id) values (1) on conflict do nothing");
  await query(
    "update settings set smtp_server = '127.0.0.1', smtp_port = $1, smtp_encryption = 'none', smtp_sender = 'console@example.com', smtp_user = null where id = 1",
    [sink.port],
  );
}
