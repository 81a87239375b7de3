"use client";

import { useEffect, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import Link from "next/link";
import { AlertTriangle, ExternalLink, Server } from "lucide-react";
import { api } from "@/lib/api/client";
import type { UpdateInfo } from "@/lib/platform/updates";
import { Markdown } from "@/components/enrollment/markdown";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Dialog, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { toastStore, type AppToast } from "@/components/ui/toaster";

/** Local storage (the only thing the console keeps there): the version whose notice was dismissed, and when. */
export const UPDATE_DISMISSAL_KEY = "defguard-update-dismissal";

interface Dismissal {
  version: string;
  dismissedAt: string;
}

function readDismissal(): Dismissal | null {
  try {
    const v = JSON.parse(localStorage.getItem(UPDATE_DISMISSAL_KEY) ?? "null") as Dismissal | null;
    return v && typeof v.version === "string" ? v : null;
  } catch {
    return null;
  }
}

function dismiss(version: string) {
  try {
    localStorage.setItem(UPDATE_DISMISSAL_KEY, JSON.stringify({ version, dismissedAt: new Date().toISOString() } satisfies Dismissal));
  } catch {
    // storage unavailable: the notice comes back with the next load
  }
}

export const updatesQuery = {
  queryKey: ["updates"],
  queryFn: () => api.get<UpdateInfo | null>("/updates"),
  staleTime: 60 * 60_000,
  refetchOnWindowFocus: false,
  retry: false,
} as const;

export interface OutdatedBody {
  proxy?: { version: string } | null;
  gateways: { version: string; hostname: string; location_id?: number; location_name?: string }[];
}

export const outdatedQuery = {
  queryKey: ["outdated"],
  queryFn: () => api.get<OutdatedBody>("/outdated"),
  staleTime: 10 * 60_000,
  refetchOnWindowFocus: false,
  retry: false,
} as const;

/** Set while the toast's "Details" removes it, so that removal is not taken for a dismissal. */
let openingDetails = false;
let openDetails: ((u: UpdateInfo) => void) | null = null;

function UpdateToastBody({ toast: item, dismiss: close }: { toast: AppToast; dismiss: () => void }) {
  const t = useTranslations("updates");
  const update = (item as AppToast & { update?: UpdateInfo }).update;
  return (
    <div data-testid="update-toast">
      <p className="font-medium text-fg">{item.message}</p>
      {item.subMessage && <p className="mt-0.5 text-fg-muted">{item.subMessage}</p>}
      <div className="mt-2 flex gap-2">
        <Button
          size="sm"
          variant="secondary"
          data-testid="update-details"
          onClick={() => {
            openingDetails = true;
            close();
            openingDetails = false;
            if (update) openDetails?.(update);
          }}
        >
          {t("more")}
        </Button>
      </div>
    </div>
  );
}

/**
 * Admins only (mounted by the shell for them): a toast when GET /updates names a newer
 * version, unless that version was dismissed in this browser. Closing the toast dismisses the
 * version; "Details" opens the release notes (Markdown) with the critical flag.
 */
export function UpdateNotice() {
  const t = useTranslations("updates");
  const { data } = useQuery(updatesQuery);
  const [details, setDetails] = useState<UpdateInfo | null>(null);

  useEffect(() => {
    openDetails = setDetails;
    return () => {
      openDetails = null;
    };
  }, []);

  useEffect(() => {
    if (!data?.version) return;
    if (readDismissal()?.version === data.version) return;
    const customId = `update-${data.version}`;
    const id = toastStore.add({
      type: data.critical ? "warning" : "info",
      message: data.critical ? t("criticalTitle", { version: data.version }) : t("title", { version: data.version }),
      subMessage: t("subMessage"),
      lifetime: Infinity,
      meta: { customId },
      component: UpdateToastBody,
      // The body reads the update it announces.
      ...({ update: data } as object),
    });
    // Closing the toast (its X) dismisses this version; "Details" closes it without dismissing.
    const unsubscribe = toastStore.subscribe(() => {
      if (toastStore.getToasts().some((x) => x.id === id)) return;
      unsubscribe();
      if (!openingDetails) dismiss(data.version);
    });
    return () => {
      unsubscribe();
    };
  }, [data, t]);

  return (
    <Dialog open={details !== null} onOpenChange={(o) => !o && setDetails(null)}>
      {details && (
        <DialogContent
          data-testid="update-modal"
          className="max-w-lg"
          title={t("modalTitle", { version: details.version })}
          description={details.critical ? t("criticalDescription") : t("description")}
        >
          {details.critical && (
            <Badge tone="error" className="mb-3 self-start" data-testid="update-critical">
              {t("critical")}
            </Badge>
          )}
          {details.notes ? (
            <Markdown source={details.notes} className="max-h-80 overflow-auto text-sm" data-testid="update-notes" />
          ) : (
            <p className="text-sm text-fg-muted">{t("noNotes")}</p>
          )}
          <DialogFooter>
            {details.release_notes_url && (
              <Button asChild variant="ghost">
                <a href={details.release_notes_url} target="_blank" rel="noreferrer noopener">
                  {t("releaseNotes")}
                  <ExternalLink className="size-3.5" aria-hidden />
                </a>
              </Button>
            )}
            <Button
              data-testid="update-dismiss"
              onClick={() => {
                dismiss(details.version);
                setDetails(null);
              }}
            >
              {t("dismiss")}
            </Button>
          </DialogFooter>
        </DialogContent>
      )}
    </Dialog>
  );
}

/** Admins only: a notice above the page when gateways are older than this console supports, linking to their locations. */
export function OutdatedNotice() {
  const t = useTranslations("outdated");
  const { data } = useQuery(outdatedQuery);
  const [hidden, setHidden] = useState(false);
  const gateways = data?.gateways ?? [];
  if (hidden || (gateways.length === 0 && !data?.proxy)) return null;
  return (
    <div role="status" data-testid="outdated-notice" className="mb-6 flex items-start gap-3 rounded-lg border border-warning bg-warning-subtle px-4 py-3 text-sm text-fg">
      <AlertTriangle className="mt-0.5 size-4 shrink-0 text-warning" aria-hidden />
      <div className="min-w-0 flex-1">
        <p className="font-medium">{t("title")}</p>
        <p className="mt-0.5 text-fg-muted">{t("description")}</p>
        <ul className="mt-2 flex flex-col gap-1">
          {data?.proxy && <li>{t("proxy", { version: data.proxy.version })}</li>}
          {gateways.map((g) => (
            <li key={`${g.location_id}-${g.hostname}`} className="flex items-center gap-2">
              <Server className="size-3.5 text-fg-subtle" aria-hidden />
              {g.location_id ? (
                <Link className="text-accent underline" href={`/locations/${g.location_id}/gateway`} data-testid="outdated-gateway-link">
                  {t("gateway", { hostname: g.hostname, version: g.version, location: g.location_name ?? "" })}
                </Link>
              ) : (
                <span>{t("gatewayNoLocation", { hostname: g.hostname, version: g.version })}</span>
              )}
            </li>
          ))}
        </ul>
      </div>
      <Button size="sm" variant="ghost" onClick={() => setHidden(true)}>
        {t("hide")}
      </Button>
    </div>
  );
}
