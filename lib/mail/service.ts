import "server-only";
import { decryptSecret } from "../crypto";
import { AppError, badRequest } from "../errors";
import { getSettings, smtpConfigured, type Settings } from "../settings/service";
import { recordActivity, type Actor } from "../activity/service";
import { SMTP_FAILURE_MSG, smtpFailureOf } from "./failures";
import { transaction } from "../events";

export const SMTP_NOT_CONFIGURED = "SMTP must be configured before email tokens or notifications can be used";

export { smtpConfigured };

/** nodemailer is loaded with the first message, not at start-up (restart time, resident memory). */
async function transport(s: Settings) {
  const { default: nodemailer } = await import("nodemailer");
  return nodemailer.createTransport({
    host: s.smtpServer!,
    port: s.smtpPort!,
    secure: s.smtpEncryption === "implicit_tls",
    requireTLS: s.smtpEncryption === "starttls",
    ignoreTLS: s.smtpEncryption === "none",
    auth: s.smtpUser ? { user: s.smtpUser, pass: s.smtpPasswordEnc ? decryptSecret(s.smtpPasswordEnc) : "" } : undefined,
    tls: { rejectUnauthorized: process.env.DEFGUARD_SMTP_TLS_INSECURE !== "1" },
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  });
}

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
  /** Files attached to the message (the support bundle). */
  attachments?: { filename: string; content: string; contentType: string }[];
}

/** Send one message with the configured SMTP server; 400 with SMTP_NOT_CONFIGURED when not configured. */
export async function sendMail(mail: Mail): Promise<void> {
  const s = await getSettings();
  if (!smtpConfigured(s)) throw badRequest(SMTP_NOT_CONFIGURED);
  try {
    await (await transport(s)).sendMail({ from: s.smtpSender!, to: mail.to, subject: mail.subject, text: mail.text, html: mail.html, attachments: mail.attachments });
  } catch (err) {
    const failure = smtpFailureOf(err);
    const e = err as { code?: unknown; originalCode?: unknown; responseCode?: unknown };
    // Category and codes only: the server's text can echo credentials or addresses.
    console.error(
      `[mail] sending failed (${failure}): code ${String(e.code ?? "-")}${e.originalCode ? `/${String(e.originalCode)}` : ""}${e.responseCode ? `, SMTP ${String(e.responseCode)}` : ""}`,
    );
    throw new AppError(503, SMTP_FAILURE_MSG[failure]);
  }
}

export async function sendTestMail(actor: Actor, to: string): Promise<void> {
  const s = await getSettings();
  // The log entry and the message go together: the entry is written first in the transaction
  // and the message sent before it commits, so a failed send (503) rolls the entry back.
  await transaction(async (tx) => {
    await recordActivity(tx, actor, { event: "smtp_test_sent", description: `Test e-mail sent to ${to}` });
    await sendMail({
      to,
      subject: `${s.instanceName}: test message`,
      text: `This is a test message from ${s.instanceName}. If you can read it, SMTP is configured correctly.`,
    });
  });
}

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** Template: password reset link. */
export function passwordResetMail(p: {
  instanceName: string;
  name: string;
  url: string;
  expiresMinutes: number;
  /** Who started it: an administrator, or someone who entered the address on the reset page. */
  requestedBy?: "admin" | "self";
}): Omit<Mail, "to"> {
  const who = p.requestedBy === "self" ? "Someone (hopefully you) asked for a password reset" : "an administrator started a password reset";
  const text = `Hello ${p.name},\n\n${who} for your account on ${p.instanceName}.\nOpen this link to choose a new password (valid for ${p.expiresMinutes} minutes):\n\n${p.url}\n\nIf you did not expect this message, tell your administrator.\n`;
  const html = `<p>Hello ${escapeHtml(p.name)},</p><p>${escapeHtml(who)} for your account on ${escapeHtml(p.instanceName)}.</p><p><a href="${escapeHtml(p.url)}">Choose a new password</a> (valid for ${p.expiresMinutes} minutes).</p><p>If you did not expect this message, tell your administrator.</p>`;
  return { subject: `${p.instanceName}: reset your password`, text, html };
}
