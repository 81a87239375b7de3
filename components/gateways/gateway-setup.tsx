"use client";

import { useState } from "react";
import Link from "next/link";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { ArrowLeft, KeyRound, MapPinOff, Pencil, RotateCcw, ShieldAlert, TriangleAlert } from "lucide-react";
import { api, ApiBadRequestError } from "@/lib/api/client";
import { useApiErrorText } from "@/components/devices/errors";
import { useLocation } from "@/components/locations/api";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import type { CodeBlockLabels } from "@/components/ui/code-block";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { CopyField } from "@/components/ui/copy-field";
import { EmptyState } from "@/components/ui/empty-state";
import { Field } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { toast } from "@/components/ui/toaster";
import { gatewayKeys, useGatewayToken, type GatewayTokenBody } from "./api";
import { GatewayInstructions } from "./gateway-instructions";
import { GatewayList } from "./gateway-list";

/** Whether a gRPC URL names this machine only (remote gateways cannot reach it). */
function isLoopback(url: string): boolean {
  try {
    const host = new URL(url).hostname.replace(/^\[|\]$/g, "");
    return host === "localhost" || host === "::1" || host.startsWith("127.");
  } catch {
    return false;
  }
}

function useCopyLabels() {
  const t = useTranslations("gateways.copy");
  const labels: CodeBlockLabels = { copy: t("copy"), copied: t("copied"), download: t("download"), insecure: t("insecure"), failed: t("failed") };
  return labels;
}

function ConnectionCard({ locationId }: { locationId: number }) {
  const t = useTranslations("gateways.setup");
  const labels = useCopyLabels();
  const token = useGatewayToken(locationId);
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const [confirmOpen, setConfirmOpen] = useState(false);

  async function regenerate() {
    try {
      const fresh = await api.post<GatewayTokenBody>(`/network/${locationId}/token/rotate`);
      queryClient.setQueryData(gatewayKeys.token(locationId), fresh);
      toast.success(t("regenerated"));
      // Gateways using the old token drop off within a second.
      setTimeout(() => void queryClient.invalidateQueries({ queryKey: gatewayKeys.location(locationId) }), 1500);
    } catch (err) {
      toast.error(t("regenerateFailed"), { subMessage: errorText(err) });
      throw err;
    }
  }

  return (
    <Card data-testid="gateway-connection">
      <CardHeader
        title={t("title")}
        description={t("description")}
        action={
          token.isSuccess && (
            <Button variant="secondary" onClick={() => setConfirmOpen(true)} data-testid="gateway-token-regenerate">
              <RotateCcw aria-hidden />
              {t("regenerate")}
            </Button>
          )
        }
      />
      <ConfirmDialog
        open={confirmOpen}
        onOpenChange={setConfirmOpen}
        title={t("regenerateTitle")}
        description={t("regenerateDescription")}
        confirmLabel={t("regenerateConfirm")}
        danger
        onConfirm={regenerate}
      />
      <CardBody className="flex flex-col gap-6">
        {token.isPending ? (
          <div className="flex flex-col gap-4" aria-hidden>
            {[0, 1].map((i) => (
              <div key={i} className="flex flex-col gap-2">
                <Skeleton className="h-4 w-24" />
                <Skeleton className="h-9 w-full" />
              </div>
            ))}
            <Skeleton className="h-48 w-full" />
          </div>
        ) : token.isError ? (
          <InlineError message={t("tokenFailed")} detail={errorText(token.error)} onRetry={() => token.refetch()} retrying={token.isFetching} />
        ) : (
          <>
            <div className="grid gap-4 lg:grid-cols-2">
              <Field
                label={
                  <span className="flex items-center gap-2">
                    {t("token")}
                    <Badge tone="warning">
                      <KeyRound aria-hidden />
                      {t("secret")}
                    </Badge>
                  </span>
                }
                hint={t("tokenHint")}
              >
                <CopyField value={token.data.token} labels={labels} data-testid="gateway-token" />
              </Field>
              <Field label={t("grpcUrl")} hint={t("grpcUrlHint")}>
                <CopyField value={token.data.grpc_url} labels={labels} data-testid="gateway-grpc-url" />
              </Field>
            </div>
            {token.data.grpc_plaintext_exposed && (
              <p className="flex items-start gap-2 rounded-md bg-warning-subtle px-3 py-2 text-xs text-fg" data-testid="gateway-plaintext-warning">
                <ShieldAlert className="mt-px size-3.5 shrink-0 text-warning" aria-hidden />
                {t("plaintextWarning")}
              </p>
            )}
            {isLoopback(token.data.grpc_url) && (
              <p className="flex items-start gap-2 rounded-md bg-warning-subtle px-3 py-2 text-xs text-fg" data-testid="gateway-loopback-warning">
                <TriangleAlert className="mt-px size-3.5 shrink-0 text-warning" aria-hidden />
                {t("loopbackWarning")}
              </p>
            )}
            <GatewayInstructions values={{ token: token.data.token, grpcUrl: token.data.grpc_url }} labels={labels} />
          </>
        )}
      </CardBody>
    </Card>
  );
}

/** Gateway setup of one location: its gateways and status, the token and ready-to-paste commands. */
export function GatewaySetup({ locationId }: { locationId: number }) {
  const t = useTranslations("gateways");
  const location = useLocation(locationId);
  const errorText = useApiErrorText();

  const back = (
    <Button variant="ghost" asChild>
      <Link href="/locations">
        <ArrowLeft aria-hidden />
        {t("backToLocations")}
      </Link>
    </Button>
  );

  if (location.isError) {
    const missing = location.error instanceof ApiBadRequestError && location.error.status === 404;
    return (
      <>
        <PageHeader title={t("pageTitle")} action={back} />
        {missing ? (
          <Card>
            <EmptyState icon={MapPinOff} title={t("notFoundTitle")} description={t("notFoundDescription")} />
          </Card>
        ) : (
          <InlineError message={t("locationFailed")} detail={errorText(location.error)} onRetry={() => location.refetch()} retrying={location.isFetching} />
        )}
      </>
    );
  }

  return (
    <>
      <PageHeader
        title={location.data ? t("titleFor", { name: location.data.name }) : <Skeleton className="h-7 w-64" />}
        description={t("pageDescription")}
        action={
          <>
            {back}
            <Button variant="secondary" asChild>
              <Link href={`/locations/${locationId}/edit`}>
                <Pencil aria-hidden />
                {t("editLocation")}
              </Link>
            </Button>
          </>
        }
      />
      <div className="flex flex-col gap-4">
        <GatewayList locationId={locationId} />
        <ConnectionCard locationId={locationId} />
      </div>
    </>
  );
}
