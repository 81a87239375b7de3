"use client";

import { useMemo } from "react";
import { useTranslations } from "next-intl";
import type { DatePickerLabels } from "@/components/ui/date-picker";
import type { MultiSelectLabels } from "@/components/ui/multi-select";
import type { PaginationLabels } from "@/components/ui/pagination";

/**
 * Texts for the generic primitives (components/ui take their labels as props), read from the
 * namespace of the screen that uses them: `<ns>.pager.*`, `<ns>.picker.*`, `<ns>.datePicker.*`.
 */
export function usePagerLabels(ns: "users" | "activity" | "networkDevices"): PaginationLabels {
  const t = useTranslations(`${ns}.pager`);
  return useMemo(
    () => ({
      nav: t("nav"),
      previous: t("previous"),
      next: t("next"),
      page: (page: number) => t("page", { page }),
      summary: (from: number, to: number, total: number) => t("summary", { from, to, total }),
      position: (page: number, pageCount: number) => t("position", { page, pageCount }),
    }),
    [t],
  );
}

export function useMultiSelectLabels(ns: "groups" | "profile" | "activity"): MultiSelectLabels {
  const t = useTranslations(`${ns}.picker`);
  return useMemo(
    () => ({
      search: t("search"),
      empty: t("empty"),
      remove: (label: string) => t("remove", { label }),
      more: (count: number) => t("more", { count }),
      less: t("less"),
      clear: t("clear"),
    }),
    [t],
  );
}

export function useDatePickerLabels(): DatePickerLabels {
  const t = useTranslations("activity.datePicker");
  return useMemo(
    () => ({ open: t("open"), previousMonth: t("previousMonth"), nextMonth: t("nextMonth"), time: t("time"), clear: t("clear") }),
    [t],
  );
}
