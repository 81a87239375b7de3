import "server-only";
import { cookies, headers } from "next/headers";
import { getRequestConfig } from "next-intl/server";
import { formattingLocale, LOCALE_COOKIE, negotiateLocale } from "./negotiate";

export default getRequestConfig(async () => {
  const [c, h] = await Promise.all([cookies(), headers()]);
  const locale = negotiateLocale(h.get("accept-language"), c.get(LOCALE_COOKIE)?.value);
  const messages = (await import(`../../messages/${locale}.json`)).default;
  return { locale: formattingLocale(locale), messages, timeZone: "UTC" };
});
