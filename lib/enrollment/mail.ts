import "server-only";
import { escapeHtml, type Mail } from "../mail/service";
import type { Settings } from "../settings/service";

/** The values the enrolment texts may name as {{ field }} (defguard's template fields). */
export interface WelcomeContext {
  first_name: string;
  last_name: string;
  username: string;
  defguard_url: string;
  admin_first_name: string;
  admin_last_name: string;
  admin_email: string;
  admin_phone: string;
}

/**
 * Fill {{ field }} placeholders of a welcome text. Unknown fields become empty, as an unset
 * variable would; nothing else of the template language is interpreted.
 */
export function renderWelcome(template: string, ctx: WelcomeContext): string {
  return template.replace(/\{\{\s*([a-z_]+)\s*\}\}/g, (_, k: string) => (k in ctx ? ctx[k as keyof WelcomeContext] : ""));
}

/** Markdown source as simple HTML for a mail body: escaped paragraphs and line breaks, links kept clickable. */
function markdownishHtml(md: string): string {
  return md
    .trim()
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/(https?:\/\/[^\s<]+)/g, '<a href="$1">$1</a>').replace(/\n/g, "<br>")}</p>`)
    .join("");
}

const when = (d: Date) => d.toISOString().replace("T", " ").slice(0, 16) + " UTC";

/** The e-mail of POST /user/{username}/start_enrollment: the link to the enrolment pages and the token for the desktop client. */
export function enrollmentStartMail(p: {
  instanceName: string;
  url: string;
  pageUrl: string;
  token: string;
  expiresAt: Date;
  ctx: WelcomeContext;
}): Omit<Mail, "to"> {
  const name = `${p.ctx.first_name} ${p.ctx.last_name}`.trim() || p.ctx.username;
  const text =
    `Hello ${name},\n\nan account was created for you on ${p.instanceName}. Finish setting it up (password, VPN device) here:\n\n${p.pageUrl}\n\n` +
    `Or, in the defguard desktop client, add an instance with\n  URL:   ${p.url}\n  Token: ${p.token}\n\n` +
    `The link works once and until ${when(p.expiresAt)}.\n`;
  const html =
    `<p>Hello ${escapeHtml(name)},</p><p>an account was created for you on ${escapeHtml(p.instanceName)}.</p>` +
    `<p><a href="${escapeHtml(p.pageUrl)}">Finish setting up your account</a> (password, VPN device).</p>` +
    `<p>Or, in the defguard desktop client, add an instance with the URL <code>${escapeHtml(p.url)}</code> and the token <code>${escapeHtml(p.token)}</code>.</p>` +
    `<p>The link works once and until ${when(p.expiresAt)}.</p>`;
  return { subject: `${p.instanceName}: set up your account`, text, html };
}

/** The e-mail of POST /user/{username}/start_desktop: URL and token for the desktop client. */
export function desktopStartMail(p: { instanceName: string; url: string; token: string; expiresAt: Date; name: string }): Omit<Mail, "to"> {
  const text =
    `Hello ${p.name},\n\nto configure the defguard desktop client for ${p.instanceName}, add an instance with\n  URL:   ${p.url}\n  Token: ${p.token}\n\n` +
    `The token works once and until ${when(p.expiresAt)}.\n`;
  const html =
    `<p>Hello ${escapeHtml(p.name)},</p><p>to configure the defguard desktop client for ${escapeHtml(p.instanceName)}, add an instance with the URL ` +
    `<code>${escapeHtml(p.url)}</code> and the token <code>${escapeHtml(p.token)}</code>.</p><p>The token works once and until ${when(p.expiresAt)}.</p>`;
  return { subject: `${p.instanceName}: desktop client configuration`, text, html };
}

/** The welcome e-mail sent when an enrolment completes (enrolment settings; Markdown source). */
export function welcomeMail(s: Settings, ctx: WelcomeContext, defaultMessage: string, defaultSubject: string): Omit<Mail, "to"> {
  const source = s.enrollmentUseWelcomeMessageAsEmail
    ? (s.enrollmentWelcomeMessage ?? defaultMessage)
    : (s.enrollmentWelcomeEmail ?? s.enrollmentWelcomeMessage ?? defaultMessage);
  const text = renderWelcome(source, ctx);
  return { subject: s.enrollmentWelcomeEmailSubject ?? defaultSubject, text, html: markdownishHtml(text) };
}

/** To the admin who started an enrolment, when the user finished it (defguard sends the same notice). */
export function enrollmentCompletedAdminMail(p: { instanceName: string; adminName: string; userName: string; username: string }): Omit<Mail, "to"> {
  const text = `Hello ${p.adminName},\n\n${p.userName} (${p.username}) completed the enrollment on ${p.instanceName}: the account is active.\n`;
  const html = `<p>Hello ${escapeHtml(p.adminName)},</p><p>${escapeHtml(p.userName)} (<code>${escapeHtml(p.username)}</code>) completed the enrollment on ${escapeHtml(p.instanceName)}: the account is active.</p>`;
  return { subject: `${p.instanceName}: user enrollment completed`, text, html };
}

/** To a user, when a device was added to their account (name, key, locations with addresses, where from). */
export function newDeviceMail(p: { instanceName: string; deviceName: string; pubkey: string; locations: { name: string; ips: string[] }[]; ip: string | null }): Omit<Mail, "to"> {
  const locs = p.locations.map((l) => `  ${l.name}: ${l.ips.join(", ")}`).join("\n") || "  (none)";
  const text =
    `A new device was added to your account on ${p.instanceName}.\n\nDevice: ${p.deviceName}\nPublic key: ${p.pubkey}\nLocations:\n${locs}\n` +
    (p.ip ? `Added from: ${p.ip}\n` : "") +
    `\nIf this was not you, tell your administrator.\n`;
  const html =
    `<p>A new device was added to your account on ${escapeHtml(p.instanceName)}.</p>` +
    `<p>Device: <b>${escapeHtml(p.deviceName)}</b><br>Public key: <code>${escapeHtml(p.pubkey)}</code></p>` +
    `<ul>${p.locations.map((l) => `<li>${escapeHtml(l.name)}: ${escapeHtml(l.ips.join(", "))}</li>`).join("")}</ul>` +
    (p.ip ? `<p>Added from: ${escapeHtml(p.ip)}</p>` : "") +
    `<p>If this was not you, tell your administrator.</p>`;
  return { subject: `${p.instanceName}: new device added to your account`, text, html };
}
