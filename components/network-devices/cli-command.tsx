"use client";

import { useEffect, useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useFormatter, useTranslations } from "next-intl";
import { AlertTriangle, Terminal } from "lucide-react";
import { api } from "@/lib/api/client";
import { deviceKeys, type CliTokenBody, type NetworkDevice } from "@/components/devices/api";
import { useCodeBlockLabels } from "@/components/devices/config-result";
import { useApiErrorText } from "@/components/devices/errors";
import { Button } from "@/components/ui/button";
import { CodeBlock } from "@/components/ui/code-block";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { localTimeZone, RelativeTime } from "@/components/ui/relative-time";
import { toast } from "@/components/ui/toaster";

/** The command that configures the device: `dg -u <enrollment_url> -t <enrollment_token>`. */
export function cliCommand(token: Pick<CliTokenBody, "enrollment_url" | "enrollment_token">): string {
  return `dg -u ${token.enrollment_url} -t ${token.enrollment_token}`;
}

/** The ready-to-copy `dg` command of a new CLI token, with its expiry; the token is shown only now. */
export function CliCommand({ token }: { token: CliTokenBody }) {
  const t = useTranslations("networkDevices.cli");
  const format = useFormatter();
  const labels = useCodeBlockLabels();
  const expires = new Date(token.expires_at);
  const exact = format.dateTime(expires, { dateStyle: "medium", timeStyle: "short", timeZone: localTimeZone() });
  return (
    <div className="flex flex-col gap-4" data-testid="cli-command">
      <div role="note" className="flex gap-3 rounded-lg border border-warning/40 bg-warning-subtle px-4 py-3 text-sm">
        <AlertTriangle className="mt-0.5 size-4 shrink-0 text-warning" aria-hidden />
        <div className="min-w-0">
          <p className="font-medium text-fg">{t("onceTitle")}</p>
          <p className="mt-0.5 text-fg-muted">{t("onceBody")}</p>
        </div>
      </div>
      <ol className="flex list-decimal flex-col gap-1 pl-5 text-sm text-fg-muted marker:text-fg-subtle">
        <li>{t("stepInstall")}</li>
        <li>{t("stepRun")}</li>
      </ol>
      <CodeBlock code={cliCommand(token)} label={t("commandLabel")} labels={labels} wrap data-testid="cli-command-code" />
      <p className="flex items-center gap-1.5 text-xs text-fg-muted" data-testid="cli-expiry">
        <Terminal className="size-3.5 shrink-0" aria-hidden />
        <span>
          {t.rich("expires", {
            when: () => <RelativeTime value={expires} />,
            exact,
          })}
        </span>
      </p>
    </div>
  );
}

/**
 * "Generate CLI token" for a network device still waiting for the defguard CLI: says that the
 * new token replaces earlier ones, then shows the command.
 */
export function CliTokenDialog({ device, onOpenChange }: { device: NetworkDevice | null; onOpenChange: (open: boolean) => void }) {
  const t = useTranslations("networkDevices.cli");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const [token, setToken] = useState<CliTokenBody | null>(null);

  useEffect(() => {
    if (!device) setToken(null);
  }, [device]);

  const generate = useMutation({
    mutationFn: (id: number) => api.post<CliTokenBody>(`/device/network/start_cli/${id}`),
    onSuccess: (body) => {
      setToken(body);
      void queryClient.invalidateQueries({ queryKey: deviceKeys.network });
    },
    onError: (err) => toast.error(t("failed"), { subMessage: errorText(err) }),
  });

  return (
    <Dialog open={!!device} onOpenChange={(o) => !generate.isPending && onOpenChange(o)}>
      <DialogContent
        title={t("tokenTitle", { name: device?.name ?? "" })}
        description={token ? t("readyDescription", { location: device?.location?.name ?? "" }) : t("tokenDescription")}
        className={token ? "max-w-2xl" : "max-w-md"}
        // The token is shown once: no closing by a stray click.
        onInteractOutside={(e) => token && e.preventDefault()}
      >
        {token ? (
          <>
            <CliCommand token={token} />
            <DialogFooter>
              <DialogClose asChild>
                <Button data-testid="cli-done">{t("done")}</Button>
              </DialogClose>
            </DialogFooter>
          </>
        ) : (
          <DialogFooter className="mt-2">
            <DialogClose asChild>
              <Button variant="secondary" disabled={generate.isPending}>
                {t("cancel")}
              </Button>
            </DialogClose>
            <Button loading={generate.isPending} onClick={() => device && generate.mutate(device.id)} data-testid="cli-generate">
              {t("generate")}
            </Button>
          </DialogFooter>
        )}
      </DialogContent>
    </Dialog>
  );
}
