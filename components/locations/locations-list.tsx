"use client";

import { useState } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { MapPin, MoreHorizontal, Pencil, Plus, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { useApiErrorText } from "@/components/devices/errors";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuSeparator, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import { EmptyState } from "@/components/ui/empty-state";
import { InlineError } from "@/components/ui/inline-error";
import { PageHeader } from "@/components/ui/page-header";
import {
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableHeader,
  TableMessageRow,
  TableRow,
  TableSkeletonRows,
} from "@/components/ui/table";
import { toast } from "@/components/ui/toaster";
import { locationKeys, mfaModeOf, useLocations, type Location, type MfaMode } from "./api";

const COLUMNS = [
  { width: "w-28" },
  { width: "w-32", className: "hidden lg:table-cell" },
  { width: "w-40", className: "hidden md:table-cell" },
  { width: "w-24", className: "hidden lg:table-cell" },
  { width: "w-16", className: "hidden sm:table-cell" },
  { width: "w-20" },
  { width: "w-6" },
];

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

function Row({ location: l, onDelete }: { location: Location; onDelete: () => void }) {
  const t = useTranslations("locations.list");
  const router = useRouter();
  const href = `/locations/${l.id}/edit`;
  return (
    <TableRow className="cursor-pointer" onClick={() => router.push(href)} data-testid="location-row" data-location={l.name}>
      <TableCell className="max-w-56">
        <Link href={href} onClick={(e) => e.stopPropagation()} className="block truncate font-medium text-fg hover:underline focus-visible:outline-2">
          {l.name}
        </Link>
        <span className="block truncate font-mono text-xs text-fg-muted md:hidden">
          {l.endpoint}:{l.port}
        </span>
      </TableCell>
      <TableCell className="hidden font-mono text-xs lg:table-cell">{l.address.join(", ")}</TableCell>
      <TableCell className="hidden max-w-64 truncate font-mono text-xs md:table-cell">
        {l.endpoint}:{l.port}
      </TableCell>
      <TableCell className="hidden lg:table-cell">
        {l.allowed_groups.length === 0 ? (
          <span className="text-xs text-fg-muted">{t("allUsers")}</span>
        ) : (
          <span className="flex flex-wrap gap-1">
            {l.allowed_groups.slice(0, 3).map((g) => (
              <Badge key={g}>{g}</Badge>
            ))}
            {l.allowed_groups.length > 3 && <Badge>+{l.allowed_groups.length - 3}</Badge>}
          </span>
        )}
      </TableCell>
      <TableCell className="hidden sm:table-cell">
        <MfaBadge mode={mfaModeOf(l)} />
      </TableCell>
      <TableCell>
        <GatewayBadge location={l} />
      </TableCell>
      <TableCell className="w-10 pr-2 text-right" onClick={(e) => e.stopPropagation()}>
        <DropdownMenu>
          <DropdownMenuTrigger asChild>
            <Button variant="ghost" size="icon" aria-label={t("actions", { name: l.name })}>
              <MoreHorizontal aria-hidden />
            </Button>
          </DropdownMenuTrigger>
          <DropdownMenuContent align="end">
            <DropdownMenuItem onSelect={() => router.push(href)}>
              <Pencil aria-hidden />
              {t("edit")}
            </DropdownMenuItem>
            <DropdownMenuSeparator />
            <DropdownMenuItem danger onSelect={onDelete}>
              <Trash2 aria-hidden />
              {t("delete")}
            </DropdownMenuItem>
          </DropdownMenuContent>
        </DropdownMenu>
      </TableCell>
    </TableRow>
  );
}

/** Locations: name, addresses, endpoint, allowed groups, MFA mode and gateway state; "Add location" opens the wizard. */
export function LocationsList() {
  const t = useTranslations("locations.list");
  const tEdit = useTranslations("locations.edit");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const locations = useLocations();
  const [deleting, setDeleting] = useState<Location | null>(null);

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

  return (
    <>
      <PageHeader title={t("title")} description={t("description")} action={add} />
      <TableContainer>
        <Table>
          <TableHeader>
            <tr>
              <TableHead>{t("name")}</TableHead>
              <TableHead className="hidden lg:table-cell">{t("addresses")}</TableHead>
              <TableHead className="hidden md:table-cell">{t("endpoint")}</TableHead>
              <TableHead className="hidden lg:table-cell">{t("groups")}</TableHead>
              <TableHead className="hidden sm:table-cell">{t("mfa")}</TableHead>
              <TableHead>{t("gateway")}</TableHead>
              <TableHead className="w-10">
                <span className="sr-only">{t("actionsColumn")}</span>
              </TableHead>
            </tr>
          </TableHeader>
          <TableBody>
            {locations.isPending ? (
              <TableSkeletonRows rows={4} columns={COLUMNS} />
            ) : locations.isError ? (
              <TableMessageRow colSpan={7}>
                <InlineError
                  className="m-4"
                  message={t("loadFailed")}
                  detail={errorText(locations.error)}
                  onRetry={() => locations.refetch()}
                  retrying={locations.isFetching}
                />
              </TableMessageRow>
            ) : locations.data.length === 0 ? (
              <TableMessageRow colSpan={7}>
                <EmptyState icon={MapPin} title={t("emptyTitle")} description={t("emptyDescription")} action={add} />
              </TableMessageRow>
            ) : (
              locations.data.map((l) => <Row key={l.id} location={l} onDelete={() => setDeleting(l)} />)
            )}
          </TableBody>
        </Table>
      </TableContainer>
      <ConfirmDialog
        open={!!deleting}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={tEdit("deleteTitle", { name: deleting?.name ?? "" })}
        description={tEdit("deleteDescription")}
        confirmLabel={tEdit("deleteConfirm")}
        danger
        onConfirm={() => deleting && remove(deleting)}
      />
    </>
  );
}
