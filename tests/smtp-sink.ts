/**
 * A local SMTP sink (the `smtp-server` package) for tests: accepts every message on loopback
 * and keeps the raw text, so tests read what the console really sent.
 */
import { SMTPServer } from "smtp-server";
import { freePort } from "@/lib/db/embedded";
import { query } from "./helpers";

export interface SunkMail {
  from: string;
  to: string[];
  raw: string;
  subject: string;
}

export interface SmtpSink {
  port: number;
  messages: SunkMail[];
  /** Wait for the next message (or the first one already received after `after`). */
  next(after?: number, timeoutMs?: number): Promise<SunkMail>;
  close(): Promise<void>;
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: SunkMail[] = [];
  const waiters: (() => void)[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const subject = /^Subject: (.*)$/im.exec(raw)?.[1]?.trim() ?? "";
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          subject,
        });
        waiters.splice(0).forEach((w) => w());
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((res) => server.listen(port, "127.0.0.1", res));
  return {
    port,
    messages,
    async next(after = messages.length, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length <= after) {
        if (Date.now() > deadline) throw new Error("no e-mail arrived at the SMTP sink");
        await new Promise<void>((res) => {
          waiters.push(res);
          setTimeout(res, 200);
        });
      }
      return messages[after];
    },
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
}

/** Point the console's SMTP settings at the sink (plain SMTP on loopback). */
export async function useSmtpSink(sink: SmtpSink): Promise<void> {
  await query("insert into settings (id) values (1) on conflict do nothing");
  await query(
    "update settings set smtp_server = '127.0.0.1', smtp_port = $1, smtp_encryption = 'none', smtp_sender = 'console@example.com', smtp_user = null where id = 1",
    [sink.port],
  );
}
