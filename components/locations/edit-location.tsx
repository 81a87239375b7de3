"use client";

import { useState } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { ArrowLeft, MapPinOff, Trash2 } from "lucide-react";
import { ApiBadRequestError, api } from "@/lib/api/client";
import { useApiErrorText } from "@/components/devices/errors";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { EmptyState } from "@/components/ui/empty-state";
import { InlineError } from "@/components/ui/inline-error";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { toast } from "@/components/ui/toaster";
import { locationKeys, useLocation, type Location } from "./api";
import { LocationForm } from "./location-form";

function FormSkeleton() {
  return (
    <div className="flex flex-col gap-4" aria-hidden>
      {[4, 3, 3].map((rows, i) => (
        <Card key={i}>
          <div className="border-b border-border px-4 py-3">
            <Skeleton className="h-5 w-40" />
          </div>
          <div className="grid gap-4 p-4 md:grid-cols-2">
            {Array.from({ length: rows }, (_, j) => (
              <div key={j} className="flex flex-col gap-2">
                <Skeleton className="h-4 w-24" />
                <Skeleton className="h-9 w-full" />
              </div>
            ))}
          </div>
        </Card>
      ))}
    </div>
  );
}

/** Edit Location: every field, allowed groups, and delete (which takes its network devices along). */
export function EditLocation({ id }: { id: number }) {
  const t = useTranslations("locations.edit");
  const errorText = useApiErrorText();
  const router = useRouter();
  const queryClient = useQueryClient();
  const location = useLocation(id);
  const [confirm, setConfirm] = useState(false);

  async function remove(l: Location) {
    try {
      await api.delete(`/network/${l.id}`);
      toast.success(t("deleted", { name: l.name }));
      queryClient.removeQueries({ queryKey: locationKeys.one(l.id) });
      await queryClient.invalidateQueries({ queryKey: locationKeys.all });
      void queryClient.invalidateQueries({ queryKey: ["devices"] });
      void queryClient.invalidateQueries({ queryKey: ["info"] });
      router.push("/locations");
    } catch (err) {
      toast.error(t("deleteFailed", { name: l.name }), { subMessage: errorText(err) });
      throw err;
    }
  }

  const back = (
    <Button variant="ghost" asChild>
      <Link href="/locations">
        <ArrowLeft aria-hidden />
        {t("back")}
      </Link>
    </Button>
  );

  if (location.isPending) {
    return (
      <>
        <PageHeader title={<Skeleton className="h-7 w-56" />} action={back} />
        <FormSkeleton />
      </>
    );
  }
  if (location.isError) {
    const missing = location.error instanceof ApiBadRequestError && location.error.status === 404;
    return (
      <>
        <PageHeader title={t("title")} action={back} />
        {missing ? (
          <Card>
            <EmptyState
              icon={MapPinOff}
              title={t("notFoundTitle")}
              description={t("notFoundDescription")}
              action={
                <Button asChild>
                  <Link href="/locations">{t("toList")}</Link>
                </Button>
              }
            />
          </Card>
        ) : (
          <InlineError
            message={t("loadFailed")}
            detail={errorText(location.error)}
            onRetry={() => location.refetch()}
            retrying={location.isFetching}
          />
        )}
      </>
    );
  }

  const l = location.data;
  return (
    <>
      <PageHeader title={t("titleName", { name: l.name })} description={t("description")} action={back} />
      <LocationForm
        key={l.id}
        location={l}
        submitLabel={t("save")}
        onSaved={(saved) => queryClient.setQueryData(locationKeys.one(saved.id), saved)}
        secondaryAction={
          <Button variant="secondary" asChild>
            <Link href="/locations">{t("cancel")}</Link>
          </Button>
        }
        dangerAction={
          <Button variant="ghost" className="text-error hover:bg-error-subtle hover:text-error" onClick={() => setConfirm(true)} data-testid="location-delete">
            <Trash2 aria-hidden />
            {t("delete")}
          </Button>
        }
      />
      <ConfirmDialog
        open={confirm}
        onOpenChange={setConfirm}
        title={t("deleteTitle", { name: l.name })}
        description={t("deleteDescription")}
        confirmLabel={t("deleteConfirm")}
        danger
        onConfirm={() => remove(l)}
      />
    </>
  );
}
