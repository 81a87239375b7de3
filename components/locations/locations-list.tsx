"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { MapPin, Pencil, Plus, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { useApiErrorText } from "@/components/devices/errors";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { PageHeader } from "@/components/ui/page-header";
import { toast } from "@/components/ui/toaster";
import { locationKeys, mfaModeOf, useLocations, type Location, type MfaMode } from "./api";

export function GatewayBadge({ location }: { location: Location }) {
  const t = useTranslations("locations.list");
  return location.connected ? (
    <Badge tone="success">{t("gatewayConnected")}</Badge>
  ) : (
    <Badge tone="neutral">{t("gatewayDisconnected")}</Badge>
  );
}

export function MfaBadge({ mode }: { mode: MfaMode }) {
  const t = useTranslations("locations.form.mfaModes");
  return <Badge tone={mode === "disabled" ? "neutral" : "info"}>{t(mode)}</Badge>;
}

/** Locations: name, addresses, endpoint, allowed groups, MFA mode and gateway state; "Add location" opens the wizard. */
export function LocationsList() {
  const t = useTranslations("locations.list");
  const tEdit = useTranslations("locations.edit");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const locations = useLocations();
  const router = useRouter();
  const hrefOf = (l: Location) => `/locations/${l.id}/edit`;

  async function remove(l: Location) {
    try {
      await api.delete(`/network/${l.id}`);
      toast.success(tEdit("deleted", { name: l.name }));
      await queryClient.invalidateQueries({ queryKey: locationKeys.all });
      void queryClient.invalidateQueries({ queryKey: ["devices"] });
      void queryClient.invalidateQueries({ queryKey: ["info"] });
    } catch (err) {
      toast.error(tEdit("deleteFailed", { name: l.name }), { subMessage: errorText(err) });
      throw err;
    }
  }

  const add = (
    <Button asChild>
      <Link href="/locations/new" data-testid="add-location">
        <Plus aria-hidden />
        {t("add")}
      </Link>
    </Button>
  );

  const columns: DataColumn<Location>[] = [
    {
      header: t("name"),
      skeleton: "w-28",
      cellClassName: "max-w-56",
      cell: (l) => (
        <>
          <Link href={hrefOf(l)} onClick={(e) => e.stopPropagation()} className="block truncate font-medium text-fg hover:underline focus-visible:outline-2">
            {l.name}
          </Link>
          <span className="block truncate font-mono text-xs text-fg-muted md:hidden">
            {l.endpoint}:{l.port}
          </span>
        </>
      ),
    },
    { header: t("addresses"), skeleton: "w-32", className: "hidden lg:table-cell", cellClassName: "font-mono text-xs", cell: (l) => l.address.join(", ") },
    {
      header: t("endpoint"),
      skeleton: "w-40",
      className: "hidden md:table-cell",
      cellClassName: "max-w-64 truncate font-mono text-xs",
      cell: (l) => `${l.endpoint}:${l.port}`,
    },
    {
      header: t("groups"),
      skeleton: "w-24",
      className: "hidden lg:table-cell",
      cell: (l) =>
        l.allowed_groups.length === 0 ? (
          <span className="text-xs text-fg-muted">{t("allUsers")}</span>
        ) : (
          <span className="flex flex-wrap gap-1">
            {l.allowed_groups.slice(0, 3).map((g) => (
              <Badge key={g}>{g}</Badge>
            ))}
            {l.allowed_groups.length > 3 && <Badge>+{l.allowed_groups.length - 3}</Badge>}
          </span>
        ),
    },
    { header: t("mfa"), skeleton: "w-16", className: "hidden sm:table-cell", cell: (l) => <MfaBadge mode={mfaModeOf(l)} /> },
    { header: t("gateway"), skeleton: "w-20", cell: (l) => <GatewayBadge location={l} /> },
  ];

  return (
    <>
      <PageHeader title={t("title")} description={t("description")} action={add} />
      <DataTable
        columns={columns}
        rows={locations.data}
        rowKey={(l) => l.id}
        skeletonRows={4}
        error={
          locations.isError
            ? { message: t("loadFailed"), detail: errorText(locations.error), onRetry: () => void locations.refetch(), retrying: locations.isFetching }
            : null
        }
        empty={{ icon: MapPin, title: t("emptyTitle"), description: t("emptyDescription"), action: add }}
        rowProps={(l) => ({ className: "cursor-pointer", onClick: () => router.push(hrefOf(l)), "data-testid": "location-row", "data-location": l.name })}
        actions={{
          label: (l) => t("actions", { name: l.name }),
          columnLabel: t("actionsColumn"),
          items: (l) => [
            { label: t("edit"), icon: Pencil, onSelect: () => router.push(hrefOf(l)) },
            {
              label: t("delete"),
              icon: Trash2,
              danger: true,
              separated: true,
              confirm: {
                title: tEdit("deleteTitle", { name: l.name }),
                description: tEdit("deleteDescription"),
                confirmLabel: tEdit("deleteConfirm"),
                run: () => remove(l),
              },
            },
          ],
        }}
      />
    </>
  );
}
