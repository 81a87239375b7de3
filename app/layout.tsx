import type { ReactNode } from "react";
import type { Metadata } from "next";
import { cache } from "react";
import { GeistMono } from "geist/font/mono";
import { GeistSans } from "geist/font/sans";
import { NextIntlClientProvider } from "next-intl";
import { getLocale } from "next-intl/server";
import { Providers } from "@/components/providers";
import { FALLBACK_INSTANCE_NAME } from "@/components/settings/defaults";
import { THEME_SCRIPT } from "@/components/theme/theme";
import { getEssentials } from "@/lib/settings/service";
import "./globals.css";

/** Essentials for this request, or undefined when the database cannot answer (the client retries). */
const loadEssentials = cache(async () => {
  try {
    return await getEssentials();
  } catch {
    return undefined;
  }
});

export async function generateMetadata(): Promise<Metadata> {
  const essentials = await loadEssentials();
  return { title: essentials?.instance_name || FALLBACK_INSTANCE_NAME };
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  const [locale, essentials] = await Promise.all([getLocale(), loadEssentials()]);
  return (
    <html lang={locale} className={`${GeistSans.variable} ${GeistMono.variable}`} suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      <body>
        <NextIntlClientProvider>
          <Providers essentials={essentials}>{children}</Providers>
        </NextIntlClientProvider>
      </body>
    </html>
  );
}
