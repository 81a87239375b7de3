"use client";

import { useEffect, useState } from "react";
import Link from "next/link";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { setLicenceRequiredHandler } from "@/lib/api/client";
import { Button } from "@/components/ui/button";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { appInfoQuery } from "@/components/settings/queries";

const KINDS = ["user", "device", "wireguard_network", "network_device"] as const;

/**
 * The upgrade dialog: opened by the API client whenever an enterprise route answers 403
 * license_required (the free tier is exceeded without a valid licence). It names what is over
 * the limits (from GET /info) and leads to Settings → Enterprise features to enter a licence.
 * Nothing was changed by the refused request.
 */
export function UpgradeDialog() {
  const t = useTranslations("licence.upgrade");
  const tc = useTranslations("common");
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState("");
  const info = useQuery({ ...appInfoQuery, enabled: open });

  useEffect(
    () =>
      setLicenceRequiredHandler((msg) => {
        setReason(msg);
        setOpen(true);
        void client.invalidateQueries({ queryKey: appInfoQuery.queryKey });
      }),
    [client],
  );

  const exceeded = KINDS.filter((k) => info.data?.license_info.limits_exceeded[k]);
  return (
    <Dialog open={open} onOpenChange={setOpen}>
      <DialogContent title={t("title")} description={t("description")}>
        <div data-testid="upgrade-dialog">
        {exceeded.length > 0 && (
          <ul className="mb-3 list-disc pl-5 text-sm text-fg" data-testid="upgrade-exceeded">
            {exceeded.map((k) => (
              <li key={k}>{t(`kinds.${k}`)}</li>
            ))}
          </ul>
        )}
        <p className="text-sm text-fg-muted">{reason}</p>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary">{tc("close")}</Button>
          </DialogClose>
          <Button asChild onClick={() => setOpen(false)}>
            <Link href="/settings?tab=enterprise" data-testid="upgrade-enter-licence">
              {t("enterLicence")}
            </Link>
          </Button>
        </DialogFooter>
        </div>
      </DialogContent>
    </Dialog>
  );
}
