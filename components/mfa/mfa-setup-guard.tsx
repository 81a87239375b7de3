"use client";

import { useEffect } from "react";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { isMfaSetupRequired, MFA_SETUP_PATH } from "./api";

/**
 * Sends the user to the MFA set-up as soon as any query or mutation answers 403
 * mfa_setup_required (the instance requires MFA and this account has none). Mount it once
 * inside the console frame; it renders nothing.
 */
export function MfaSetupGuard() {
  const client = useQueryClient();
  const router = useRouter();
  useEffect(() => {
    let sent = false;
    const go = (error: unknown) => {
      if (sent || !isMfaSetupRequired(error)) return;
      sent = true;
      const { pathname, search } = window.location;
      router.replace(`${MFA_SETUP_PATH}?r=${encodeURIComponent(pathname + search)}`);
    };
    const offQueries = client.getQueryCache().subscribe((event) => {
      if (event.type === "updated" && event.action.type === "error") go(event.action.error);
    });
    const offMutations = client.getMutationCache().subscribe((event) => {
      if (event.type === "updated" && event.action.type === "error") go(event.action.error);
    });
    // Errors that arrived before this mounted.
    for (const q of client.getQueryCache().getAll()) go(q.state.error);
    return () => {
      offQueries();
      offMutations();
    };
  }, [client, router]);
  return null;
}
