"use client";

import { useTranslations } from "next-intl";
import { useQueryClient } from "@tanstack/react-query";
import { Boxes, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import type { UserInfo } from "@/lib/api/types";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { toast } from "@/components/ui/toaster";
import { useServerError } from "@/components/users/server-errors";
import { userKeys } from "@/components/users/queries";
import { currentUserQuery } from "@/components/auth/use-current-user";

type App = UserInfo["authorized_apps"][number];

/** The OpenID apps a user consented to; revoking one also ends its tokens. */
export function AuthorizedApps({ user }: { user: UserInfo }) {
  const t = useTranslations("openidApps.authorized");
  const client = useQueryClient();
  const serverError = useServerError();
  const apps = user.authorized_apps ?? [];

  async function revoke(app: App) {
    try {
      await api.delete(`/user/${encodeURIComponent(user.username)}/oauth_app/${String(app.oauth2client_id)}`);
      toast.success(t("revoked", { name: app.oauth2client_name }));
    } catch (err) {
      toast.error(t("revokeFailed"), { subMessage: serverError(err) });
    } finally {
      await Promise.all([
        client.invalidateQueries({ queryKey: userKeys.all }),
        client.invalidateQueries({ queryKey: ["user"] }),
        client.invalidateQueries({ queryKey: currentUserQuery.queryKey }),
      ]);
    }
  }

  return (
    <Card data-testid="authorized-apps">
      <CardHeader title={t("title")} description={t("description")} />
      <CardBody>
        {apps.length === 0 ? (
          <p className="text-sm text-fg-muted">{t("none")}</p>
        ) : (
          <ul className="divide-y divide-border">
            {apps.map((a) => (
              <li key={a.oauth2client_id} className="flex items-center justify-between gap-3 py-2" data-testid="authorized-app" data-app={a.oauth2client_name}>
                <span className="flex items-center gap-2 text-sm">
                  <Boxes className="size-4" aria-hidden />
                  {a.oauth2client_name}
                </span>
                <Button variant="secondary" size="sm" onClick={() => void revoke(a)} data-testid="authorized-app-revoke">
                  <Trash2 aria-hidden />
                  {t("revoke")}
                </Button>
              </li>
            ))}
          </ul>
        )}
      </CardBody>
    </Card>
  );
}
