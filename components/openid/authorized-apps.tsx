"use client";

import { useTranslations } from "next-intl";
import { useQueryClient } from "@tanstack/react-query";
import { Boxes, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import type { UserInfo } from "@/lib/api/types";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DataList } from "@/components/ui/data-list";
import { Skeleton } from "@/components/ui/skeleton";
import { runRowAction } from "@/components/ui/row-action";
import { useServerError } from "@/components/users/server-errors";
import { userKeys } from "@/components/users/queries";
import { currentUserQuery } from "@/components/auth/use-current-user";

type App = UserInfo["authorized_apps"][number];

/** The OpenID apps a user consented to; revoking one (after confirmation) also ends its tokens. */
export function AuthorizedApps({ user }: { user: UserInfo }) {
  const t = useTranslations("openidApps.authorized");
  const client = useQueryClient();
  const serverError = useServerError();

  const revoke = (app: App) =>
    runRowAction({
      call: () => api.delete(`/user/${encodeURIComponent(user.username)}/oauth_app/${String(app.oauth2client_id)}`),
      success: t("revoked", { name: app.oauth2client_name }),
      failure: t("revokeFailed"),
      errorText: serverError,
      settle: () =>
        Promise.all([
          client.invalidateQueries({ queryKey: userKeys.all }),
          client.invalidateQueries({ queryKey: ["user"] }),
          client.invalidateQueries({ queryKey: currentUserQuery.queryKey }),
        ]),
    });

  return (
    <Card data-testid="authorized-apps">
      <CardHeader title={t("title")} description={t("description")} />
      <CardBody>
        <DataList<App>
          rows={user.authorized_apps ?? []}
          rowKey={(a) => a.oauth2client_id}
          empty={{ icon: Boxes, title: t("none") }}
          loading={<Skeleton className="h-8 w-full" />}
          actions={{
            label: (a) => t("actionsFor", { name: a.oauth2client_name }),
            testId: "authorized-app-actions",
            items: (a) => [
              {
                label: t("revoke"),
                icon: Trash2,
                danger: true,
                testId: "authorized-app-revoke",
                confirm: {
                  title: t("revokeTitle", { name: a.oauth2client_name }),
                  description: t("revokeDescription", { name: a.oauth2client_name }),
                  confirmLabel: t("revoke"),
                  run: () => revoke(a),
                },
              },
            ],
          }}
          item={(a, menu) => (
            <li className="flex items-center justify-between gap-3 py-2" data-testid="authorized-app" data-app={a.oauth2client_name}>
              <span className="flex items-center gap-2 text-sm">
                <Boxes className="size-4" aria-hidden />
                {a.oauth2client_name}
              </span>
              {menu}
            </li>
          )}
        />
      </CardBody>
    </Card>
  );
}
