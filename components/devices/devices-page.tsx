"use client";

import { useTranslations } from "next-intl";
import { PageHeader } from "@/components/ui/page-header";
import { UserDevices } from "./user-devices";

/** "My devices" (or, for an admin, another user's devices). */
export function DevicesPage({ username, self }: { username: string; self: boolean }) {
  const t = useTranslations("devices.page");
  return (
    <>
      <PageHeader
        title={self ? t("title") : t("titleFor", { user: username })}
        description={self ? t("description") : t("descriptionFor", { user: username })}
      />
      <UserDevices username={username} self={self} />
    </>
  );
}
