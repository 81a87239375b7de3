/**
 * No secrets in logs: a failed database statement is logged without its parameters (also on
 * the API's 500 path), and SMTP failures reach the user only as a category, with the server's
 * own text and the credentials kept out of the answer and the log. The e2e run greps its whole
 * server log for the admin password, a TOTP secret and a gateway token (e2e/zz-log-secrets.spec.ts).
 */
import { createServer as createTcpServer, type Server } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { POST as mailTest } from "@/app/api/v1/mail/test/route";
import { getDb } from "@/lib/db";
import { route } from "@/lib/http/route";
import { describeError } from "@/lib/log-errors";
import { encryptSecret } from "@/lib/crypto";
import { smtpFailureOf } from "@/lib/mail/failures";
import { freePort } from "@/lib/db/embedded";
import { call, createUser, query, signIn, type Jar } from "./helpers";

const SECRET = "JBSWY3DPEHPK3PXP-not-for-logs";

function captureConsole() {
  const lines: string[] = [];
  for (const m of ["error", "warn", "log", "info"] as const) {
    vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
      lines.push(args.map((a) => (a instanceof Error ? `${a.stack} ${JSON.stringify(a)}` : String(a))).join(" "));
    });
  }
  return () => lines.join("\n");
}

afterEach(() => vi.restoreAllMocks());

describe("failed database statements", () => {
  it("describeError keeps the statement and the SQLSTATE, drops parameters and row values", async () => {
    const err = await getDb()
      .execute(sql`select ${SECRET}::int`)
      .then(() => null, (e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    // What drizzle itself would print.
    expect(String((err as Error).message)).toContain(SECRET);
    const text = describeError(err);
    expect(text).toContain("select $1::int");
    expect(text).toContain("22P02");
    expect(text).toContain("[parameters not logged]");
    expect(text).not.toContain(SECRET);
  });

  it("drops the detail of a unique violation (it quotes the row's values)", async () => {
    await query("create temporary table secret_probe (v text unique)");
    await query("insert into secret_probe values ($1)", [SECRET]);
    const err = await getDb()
      .execute(sql`insert into secret_probe values (${SECRET})`)
      .then(() => null, (e: unknown) => e);
    const cause = (err as { cause?: { detail?: string } }).cause;
    expect(cause?.detail).toContain(SECRET);
    expect(describeError(err)).not.toContain(SECRET);
    expect(describeError(cause)).not.toContain(SECRET);
    expect(describeError(cause)).toContain("23505");
  });

  it("the API's 500 path logs the failed statement without its parameters", async () => {
    const logs = captureConsole();
    const h = route({ access: "public" }, async () => {
      await getDb().execute(sql`select ${SECRET}::text from no_such_table_here`);
      return null;
    });
    const res = await call(h, { path: "/api/v1/probe" });
    expect(res.status).toBe(500);
    expect(logs()).toContain(res.json.request_id);
    expect(logs()).toContain("no_such_table_here");
    expect(logs()).not.toContain(SECRET);
  });
});

describe("SMTP failures shown to users", () => {
  let root: Jar;
  const SMTP_PASSWORD = "smtp-Secret-pass-42";
  const servers: { close(cb?: () => void): unknown }[] = [];

  beforeAll(async () => {
    await createUser({ username: "mailroot", isAdmin: true });
    root = await signIn("mailroot");
  });
  afterAll(() => {
    // Not awaited: the servers' half-done sessions would keep close() waiting.
    for (const s of servers) s.close();
  });

  async function point(port: number, encryption: "none" | "starttls" | "implicit_tls", user: string | null) {
    await query("insert into settings (id) values (1) on conflict do nothing");
    await query(
      "update settings set smtp_server = '127.0.0.1', smtp_port = $1, smtp_encryption = $2, smtp_sender = 'console@example.com', smtp_user = $3, smtp_password_enc = $4 where id = 1",
      [port, encryption, user, user ? encryptSecret(SMTP_PASSWORD) : null],
    );
  }
  async function send() {
    const logs = captureConsole();
    const res = await call(mailTest, { method: "POST", path: "/api/v1/mail/test", jar: root, body: { to: "ops@corp.test" } });
    vi.restoreAllMocks();
    return { res, log: logs() };
  }

  it("wrong credentials: 'authentication failed', without the server's text or the password", async () => {
    const server = new SMTPServer({
      authOptional: false,
      allowInsecureAuth: true,
      disabledCommands: ["STARTTLS"],
      onAuth: (_a, _s, cb) => cb(new Error("535 nope for smtp-user-x")),
    });
    servers.push(server);
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
    await point(port, "none", "smtp-user-x");
    const { res, log } = await send();
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ msg: "sending e-mail failed: authentication failed" });
    expect(log).toContain("[mail] sending failed (auth)");
    for (const s of [SMTP_PASSWORD, "nope for"]) {
      expect(log).not.toContain(s);
      expect(res.text).not.toContain(s);
    }
  });

  it("nothing listening: 'cannot connect'", async () => {
    await point(await freePort(), "none", null);
    const { res } = await send();
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ msg: "sending e-mail failed: cannot connect to the SMTP server" });
  });

  it("implicit TLS to a plain-text server: 'TLS failed'", async () => {
    // A server that greets in plain text: the TLS handshake reads garbage.
    const plain: Server = createTcpServer((s) => {
      s.on("error", () => {});
      s.end("220 plain.example ESMTP\r\n");
    });
    servers.push(plain);
    const port = await freePort();
    await new Promise<void>((r) => plain.listen(port, "127.0.0.1", () => r()));
    await point(port, "implicit_tls", null);
    const { res } = await send();
    expect(res.status).toBe(503);
    expect(res.json).toEqual({ msg: "sending e-mail failed: TLS failed" });
  });

  it("STARTTLS required but not offered: 'TLS failed'", async () => {
    const server = new SMTPServer({ authOptional: true, disabledCommands: ["STARTTLS"] });
    servers.push(server);
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, "127.0.0.1", () => r()));
    await point(port, "starttls", null);
    const { res } = await send();
    expect(res.json).toEqual({ msg: "sending e-mail failed: TLS failed" });
  });

  it("maps nodemailer codes to categories", () => {
    expect(smtpFailureOf({ code: "EAUTH" })).toBe("auth");
    expect(smtpFailureOf({ code: "ETIMEDOUT" })).toBe("connect");
    expect(smtpFailureOf({ code: "ESOCKET", originalCode: "DEPTH_ZERO_SELF_SIGNED_CERT" })).toBe("tls");
    expect(smtpFailureOf({ code: "EENVELOPE" })).toBe("rejected");
    expect(smtpFailureOf(new Error("x"))).toBe("other");
  });
});
