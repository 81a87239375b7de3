/**
 * The provider's own HTML pages (error, disabled app, consent). No scripts, so they work under
 * the console's CSP; texts come from messages/*.json (oidcProvider) in the browser's language.
 */
import en from "../../messages/en.json";
import ko from "../../messages/ko.json";
import pl from "../../messages/pl.json";
import { negotiateLocale, type Locale } from "../i18n/negotiate";

type Texts = typeof en.oidcProvider;
const TEXTS: Record<Locale, Texts> = { en: en.oidcProvider, ko: ko.oidcProvider, pl: pl.oidcProvider };

export function texts(acceptLanguage: string | null | undefined, chosen?: string | null): { t: Texts; locale: Locale } {
  const locale = negotiateLocale(acceptLanguage, chosen);
  return { t: TEXTS[locale], locale };
}

export function esc(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function fill(template: string, values: Record<string, string>): string {
  return esc(template).replace(/\{(\w+)\}/g, (_, k: string) => (k in values ? `<strong>${esc(values[k])}</strong>` : `{${k}}`));
}

const STYLE =
  "body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#222;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}" +
  "main{background:#fff;border-radius:12px;box-shadow:0 2px 12px #0002;padding:32px;max-width:440px;width:100%}" +
  "h1{font-size:20px;margin:0 0 16px}ul{padding-left:20px}code{background:#eee;padding:2px 4px;border-radius:4px}" +
  ".actions{display:flex;gap:12px;margin-top:24px}button{flex:1;padding:10px;border-radius:8px;border:1px solid #0c8ce0;font-size:15px;cursor:pointer}" +
  "button.accept{background:#0c8ce0;color:#fff}button.deny{background:#fff;color:#0c8ce0}.note{color:#666;font-size:13px}";

function page(locale: Locale, title: string, body: string): string {
  return `<!doctype html><html lang="${locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** An OAuth error shown to the user (never a redirect to an unverified redirect URI). */
export function errorPage(acceptLanguage: string | null | undefined, error: string, description: string): string {
  const { t, locale } = texts(acceptLanguage);
  return page(
    locale,
    t.errorTitle,
    `<h1>${esc(t.errorTitle)}</h1><p><code id="error">${esc(error)}</code></p>${description ? `<p id="description">${esc(description)}</p>` : ""}<p class="note">${esc(t.errorHint)}</p>`,
  );
}

/** The OpenID apps module is switched off in Settings → Global. */
export function moduleDisabledPage(acceptLanguage: string | null | undefined): string {
  const { t, locale } = texts(acceptLanguage);
  return page(locale, t.errorTitle, `<h1>${esc(t.errorTitle)}</h1><p id="description">${esc(t.moduleDisabled)}</p><p><code id="error">access_denied</code></p>`);
}

export function disabledAppPage(acceptLanguage: string | null | undefined, name: string): string {
  const { t, locale } = texts(acceptLanguage);
  return page(locale, t.errorTitle, `<h1>${esc(t.errorTitle)}</h1><p id="description">${fill(t.appDisabled, { name })}</p><p><code id="error">unauthorized_client</code></p>`);
}

export interface ConsentView {
  appName: string;
  username: string;
  scopes: string[];
  action: string;
  xsrf: string;
  redirectOrigin: string;
}

export function consentPage(acceptLanguage: string | null | undefined, chosen: string | null | undefined, v: ConsentView): string {
  const { t, locale } = texts(acceptLanguage, chosen);
  const scopeText = t.scopes as Record<string, string>;
  const items = v.scopes.map((s) => `<li data-scope="${esc(s)}">${esc(scopeText[s] ?? s)}</li>`).join("");
  return page(
    locale,
    t.consentTitle.replace("{name}", v.appName),
    `<h1>${fill(t.consentTitle, { name: v.appName })}</h1><p>${fill(t.consentIntro, { name: v.appName, username: v.username })}</p><ul>${items}</ul>` +
      `<form method="post" action="${esc(v.action)}"><input type="hidden" name="xsrf" value="${esc(v.xsrf)}">` +
      `<div class="actions"><button class="deny" type="submit" name="decision" value="deny">${esc(t.deny)}</button>` +
      `<button class="accept" type="submit" name="decision" value="allow">${esc(t.accept)}</button></div></form>` +
      `<p class="note">${fill(t.redirectNote, { origin: v.redirectOrigin })}</p>`,
  );
}
