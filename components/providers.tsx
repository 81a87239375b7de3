"use client";

import { useEffect, useState, type ReactNode } from "react";
import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { ApiBadRequestError } from "@/lib/api/client";
import type { Essentials } from "@/lib/api/types";
import { ReauthDialog } from "./auth/reauth-dialog";
import { UpgradeDialog } from "./enterprise/upgrade-dialog";
import { resetSession } from "./auth/session-store";
import { essentialsQuery, useEssentials } from "./settings/queries";
import { subscribeTheme } from "./theme/theme";
import { Toaster } from "./ui/toaster";
import { TooltipProvider } from "./ui/tooltip";
// Sets zod's jitless mode in the browser (no eval under the Content-Security-Policy).
import "@/lib/validation";

/** A 401 on any query means the session is gone: forget it and sign in again, coming back here. */
function onSessionLost(client: QueryClient) {
  resetSession();
  client.clear();
  const { pathname, search } = window.location;
  if (pathname !== "/login") window.location.replace(`/login?r=${encodeURIComponent(pathname + search)}`);
}

function makeQueryClient(essentials: Essentials | undefined): QueryClient {
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error) => {
        if (error instanceof ApiBadRequestError && error.status === 401) onSessionLost(client);
      },
    }),
    defaultOptions: {
      queries: {
        staleTime: 5_000,
        // A refused request (4xx) will be refused again; only server failures are retried.
        retry: (count, error) => !(error instanceof ApiBadRequestError) && count < 2,
      },
    },
  });
  if (essentials) client.setQueryData(essentialsQuery.queryKey, essentials);
  return client;
}

/** Keeps the essentials query alive everywhere and the theme in step with the system setting. */
function Background() {
  useEssentials();
  useEffect(() => subscribeTheme(() => {}), []);
  return null;
}

interface ProvidersProps {
  /** Essentials read while rendering on the server, so the first paint has name and logos. */
  essentials?: Essentials;
  children: ReactNode;
}

export function Providers({ essentials, children }: ProvidersProps) {
  const [client] = useState(() => makeQueryClient(essentials));
  return (
    <QueryClientProvider client={client}>
      <TooltipProvider delayDuration={300}>
        <Background />
        {children}
        <ReauthDialog />
        <UpgradeDialog />
        <Toaster />
      </TooltipProvider>
    </QueryClientProvider>
  );
}
