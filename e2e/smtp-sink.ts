/**
 * A local SMTP sink for the end-to-end specs (the `smtp-server` package): accepts every message
 * on loopback and keeps its raw text, so a spec reads the codes the console really e-mailed.
 * The vitest suites use it too (tests/smtp-sink.ts adds pointing the settings at it).
 */
import { createServer } from "node:net";
import { SMTPServer } from "smtp-server";

export interface SunkMail {
  from: string;
  to: string[];
  subject: string;
  raw: string;
}

export interface SmtpSink {
  port: number;
  messages: SunkMail[];
  /** The message number `index` (0-based), waiting for it to arrive. */
  next(index?: number, timeoutMs?: number): Promise<SunkMail>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: SunkMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: /^Subject: (.*)$/im.exec(raw)?.[1]?.trim() ?? "",
          raw,
        });
        callback();
      });
    },
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    port,
    messages,
    async next(index = messages.length, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length <= index) {
        if (Date.now() > deadline) throw new Error(`no e-mail #${index + 1} arrived at the SMTP sink`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return messages[index];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The 6-digit code of a verification e-mail (its subject ends with it). */
export function codeOf(mail: SunkMail): string {
  const m = /(\d{6})\s*$/.exec(mail.subject) ?? /\b(\d{6})\b/.exec(mail.raw);
  if (!m) throw new Error(`no 6-digit code in the e-mail "${mail.subject}"`);
  return m[1];
}
