import type { ReactNode } from "react";
import { NextIntlClientProvider } from "next-intl";
import { Providers } from "@/components/providers";
import { loadEssentials } from "./essentials";

/**
 * Everything the console's client components lean on: translations, the query client with the
 * essentials read on the server, tooltips, toasts and the re-authentication and upgrade dialogs.
 * Every layout but the sign-in page's wraps its pages in it; the sign-in page renders its texts
 * on the server and ships only its small form, so a first visit downloads little script
 * (README, "Console weight").
 */
export async function FullProviders({ children }: { children: ReactNode }) {
  const essentials = await loadEssentials();
  return (
    <NextIntlClientProvider>
      <Providers essentials={essentials}>{children}</Providers>
    </NextIntlClientProvider>
  );
}
