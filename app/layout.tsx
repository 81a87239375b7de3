import type { ReactNode } from "react";
import type { Metadata } from "next";
import { GeistMono } from "geist/font/mono";
import { GeistSans } from "geist/font/sans";
import { getLocale } from "next-intl/server";
import { FALLBACK_INSTANCE_NAME } from "@/components/settings/defaults";
import { loadEssentials } from "@/components/shell/essentials";
import { THEME_SCRIPT } from "@/components/theme/theme";
import "./globals.css";

export async function generateMetadata(): Promise<Metadata> {
  const essentials = await loadEssentials();
  return { title: essentials?.instance_name || FALLBACK_INSTANCE_NAME };
}

export default async function RootLayout({ children }: { children: ReactNode }) {
  const locale = await getLocale();
  return (
    <html lang={locale} className={`${GeistSans.variable} ${GeistMono.variable}`} suppressHydrationWarning>
      <head>
        <script dangerouslySetInnerHTML={{ __html: THEME_SCRIPT }} />
      </head>
      {/* Providers live in the layouts below (components/shell/full-providers.tsx), not here: the
          sign-in page does without them. */}
      <body>{children}</body>
    </html>
  );
}
