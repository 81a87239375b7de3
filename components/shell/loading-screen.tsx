"use client";

import { useTranslations } from "next-intl";
import { Spinner } from "@/components/ui/spinner";
import { useBranding } from "./brand";

/** Full page: logo and a size-70 spinner, while the current user or the essentials load. */
export function LoadingScreen() {
  const t = useTranslations("common");
  const { mainLogo } = useBranding();
  return (
    <div
      data-testid="loading-screen"
      role="status"
      aria-label={t("loading")}
      className="fixed inset-0 z-40 flex flex-col items-center justify-center gap-8 bg-canvas"
    >
      <img src={mainLogo} alt="" className="max-h-[100px] max-w-[250px] object-contain" />
      <Spinner size={70} className="text-accent" />
    </div>
  );
}
