"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { api, ApiBadRequestError } from "@/lib/api/client";
import { toast } from "@/components/ui/toaster";
import { essentialsQuery } from "@/components/settings/queries";
import { resetSession } from "./session-store";

/** POST /auth/logout, then forget everything held for this user and go to the login page. */
export function useLogout() {
  const t = useTranslations("auth");
  const router = useRouter();
  const client = useQueryClient();
  return useMutation({
    mutationFn: async () => {
      try {
        await api.post("/auth/logout");
      } catch (err) {
        // 401: the session had already ended, which is what was asked for.
        if (!(err instanceof ApiBadRequestError && err.status === 401)) throw err;
      }
    },
    onSuccess: () => {
      resetSession();
      // Forget everything of this user; the public essentials stay for the login page.
      client.removeQueries({ predicate: (q) => q.queryKey[0] !== essentialsQuery.queryKey[0] });
      toast.success(t("signedOut"));
      router.replace("/login");
    },
    onError: (err) => {
      toast.error(t("signOutFailed"), { subMessage: err instanceof Error ? err.message : undefined });
    },
  });
}
