/**
 * What a user is told when sending e-mail fails: a category, never the SMTP server's own text
 * (which can echo user names, host names or parts of the exchange). The full reason goes to the
 * server log only as the category and nodemailer's error code. Shared with the UI, which shows
 * each category in the user's language.
 */
export type SmtpFailure = "auth" | "connect" | "tls" | "rejected" | "other";

export const SMTP_FAILURE_MSG: Record<SmtpFailure, string> = {
  auth: "sending e-mail failed: authentication failed",
  connect: "sending e-mail failed: cannot connect to the SMTP server",
  tls: "sending e-mail failed: TLS failed",
  rejected: "sending e-mail failed: the SMTP server refused the message",
  other: "sending e-mail failed",
};

const TLS_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/i;

/** The category of a nodemailer error (its `code`, and for socket errors the system code beneath). */
export function smtpFailureOf(err: unknown): SmtpFailure {
  const e = (err ?? {}) as { code?: unknown; originalCode?: unknown; message?: unknown };
  const code = typeof e.code === "string" ? e.code : "";
  const original = typeof e.originalCode === "string" ? e.originalCode : "";
  if (code === "ETLS" || code === "EREQUIRETLS" || TLS_CODE.test(original)) return "tls";
  if (code === "EAUTH" || code === "ENOAUTH" || code === "EOAUTH2") return "auth";
  if (["ECONNECTION", "ETIMEDOUT", "ESOCKET", "EDNS", "EPROXY", "ECONNREFUSED", "ENOTFOUND"].includes(code)) {
    // A handshake that fails inside the socket (e.g. TLS to a plain-text port) is still TLS.
    return typeof e.message === "string" && /\b(ssl|tls)\b|certificate/i.test(e.message) ? "tls" : "connect";
  }
  if (code === "EENVELOPE" || code === "EMESSAGE") return "rejected";
  return "other";
}

/** The category for a message the API answered with, when it is one of ours. */
export function smtpFailureOfMessage(msg: string | undefined): SmtpFailure | null {
  const hit = (Object.entries(SMTP_FAILURE_MSG) as [SmtpFailure, string][]).find(([, m]) => m === msg);
  return hit ? hit[0] : null;
}
