"use client";

import { useState } from "react";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { api } from "@/lib/api/client";
import type { UserPageBody } from "@/lib/api/types";
import { Combobox } from "@/components/ui/combobox";
import { useDebouncedValue } from "@/components/ui/use-debounced-value";

export interface PickedUser {
  id: number;
  username: string;
}

interface UserPickerProps {
  value: PickedUser | null;
  onChange: (user: PickedUser | null) => void;
  invalid?: boolean;
  "aria-label": string;
  "data-testid"?: string;
}

/** One user, found with a server search (GET /user?search=), for mapping an imported peer. */
export function UserPicker({ value, onChange, invalid, "aria-label": ariaLabel, "data-testid": testId }: UserPickerProps) {
  const t = useTranslations("wizard.map.user");
  const [query, setQuery] = useState("");
  const search = useDebouncedValue(query.trim(), 250);
  const users = useQuery({
    queryKey: ["users", "search", "picker", search],
    queryFn: ({ signal }) =>
      api.get<UserPageBody>("/user", { signal, query: { page: 1, page_size: 50, search: search || undefined, sort: "username" } }),
    placeholderData: keepPreviousData,
  });
  const options = (users.data?.data ?? []).map((u) => {
    const name = [u.first_name, u.last_name].filter(Boolean).join(" ");
    return { value: String(u.id), label: u.username, description: [name, u.email].filter(Boolean).join(" · ") || undefined };
  });
  return (
    <Combobox
      value={value ? String(value.id) : null}
      selectedLabel={value?.username}
      onChange={(v, o) => onChange(v && o ? { id: Number(v), username: o.label } : null)}
      options={options}
      onSearchChange={setQuery}
      // Still debouncing counts as searching: the options shown are the previous query's.
      loading={users.isFetching || query.trim() !== search}
      placeholder={t("placeholder")}
      invalid={invalid}
      aria-label={ariaLabel}
      data-testid={testId}
      labels={{ search: t("search"), empty: users.isError ? t("loadFailed") : t("empty"), clear: t("clear") }}
    />
  );
}
