"use client";

import { NextIntlClientProvider, type AbstractIntlMessages } from "next-intl";
import { Providers } from "@/components/providers";
import type { LoginSuccess, MfaRequired } from "@/lib/api/types";
import { MfaStep } from "./mfa-step";

export interface MfaBoundaryProps {
  locale: string;
  messages: AbstractIntlMessages;
  methods: MfaRequired;
  onBack: () => void;
  onSignedIn: (body: LoginSuccess) => void;
}

/**
 * The second-factor step of the sign-in page with the providers it needs (translations, query
 * client, toasts). Loaded only when the password step answers that a second factor is due, so
 * the sign-in page itself ships none of it.
 */
export default function MfaBoundary({ locale, messages, methods, onBack, onSignedIn }: MfaBoundaryProps) {
  return (
    <NextIntlClientProvider locale={locale} messages={messages}>
      <Providers>
        <MfaStep methods={methods} onBack={onBack} onSignedIn={onSignedIn} />
      </Providers>
    </NextIntlClientProvider>
  );
}
