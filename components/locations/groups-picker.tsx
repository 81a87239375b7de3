"use client";

import { useTranslations } from "next-intl";
import { MultiSelect } from "@/components/ui/multi-select";
import { useGroupInfo } from "./api";

/** Allowed groups of a location: none chosen means every user may connect. */
export function GroupsPicker({ value, onChange, disabled }: { value: string[]; onChange: (v: string[]) => void; disabled?: boolean }) {
  const t = useTranslations("locations.groups");
  const groups = useGroupInfo();
  const options = (groups.data ?? []).map((g) => ({
    value: g.name,
    label: g.name,
    description: t("members", { count: g.members.length }),
  }));
  return (
    <MultiSelect
      value={value}
      onChange={onChange}
      options={options}
      loading={groups.isPending}
      disabled={disabled}
      placeholder={t("placeholder")}
      data-testid="allowed-groups"
      labels={{
        search: t("search"),
        empty: groups.isError ? t("loadFailed") : t("empty"),
        remove: (label) => t("remove", { name: label }),
        more: (count) => t("more", { count }),
        less: t("less"),
        clear: t("clear"),
      }}
    />
  );
}
