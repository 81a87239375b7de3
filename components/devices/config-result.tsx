"use client";

import { AlertTriangle, Info, MapPinOff } from "lucide-react";
import { useTranslations } from "next-intl";
import { CodeBlock, type CodeBlockLabels } from "@/components/ui/code-block";
import { cn } from "@/components/ui/cn";
import { QrCode } from "@/components/ui/qr-code";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { configFileName } from "./api";
import { withPrivateKey } from "./wg-keys";

export interface ResultConfig {
  /** The location id. */
  id: number;
  locationName: string;
  /** wg-quick text from the server (private key placeholder). */
  config: string;
}

export function useCodeBlockLabels(): CodeBlockLabels {
  const t = useTranslations("devices.config");
  return { copy: t("copy"), copied: t("copied"), download: t("download"), insecure: t("insecure"), failed: t("copyFailed") };
}

/** Says whether the private key is in the configuration (shown once) or must be filled in. */
export function KeyNotice({ generated, className }: { generated: boolean; className?: string }) {
  const t = useTranslations("devices.config");
  const Icon = generated ? AlertTriangle : Info;
  return (
    <div
      role="note"
      data-testid="key-notice"
      className={cn(
        "flex gap-3 rounded-lg border px-4 py-3 text-sm",
        generated ? "border-warning/40 bg-warning-subtle" : "border-info/30 bg-info-subtle",
        className,
      )}
    >
      <Icon className={cn("mt-0.5 size-4 shrink-0", generated ? "text-warning" : "text-info")} aria-hidden />
      <div className="min-w-0">
        <p className="font-medium text-fg">{generated ? t("onceTitle") : t("placeholderTitle")}</p>
        <p className="mt-0.5 text-fg-muted">{generated ? t("onceBody") : t("placeholderBody", { placeholder: "YOUR_PRIVATE_KEY" })}</p>
      </div>
    </div>
  );
}

function ConfigPanel({ deviceName, item, privateKey }: { deviceName: string; item: ResultConfig; privateKey: string | null }) {
  const t = useTranslations("devices.config");
  const labels = useCodeBlockLabels();
  const text = withPrivateKey(item.config, privateKey);
  return (
    <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_auto]" data-testid="config-panel" data-location={item.locationName}>
      <CodeBlock
        code={text}
        filename={configFileName(item.locationName, deviceName)}
        label={t("codeLabel", { location: item.locationName })}
        labels={labels}
        data-testid="device-config"
      />
      <figure className="flex flex-col items-center gap-2 self-start justify-self-center">
        <QrCode value={text} label={t("qrLabel", { location: item.locationName })} tooLong={t("qrTooLong")} size={208} data-testid="config-qr" />
        <figcaption className="max-w-52 text-center text-xs text-fg-muted">{t("qrCaption")}</figcaption>
      </figure>
    </div>
  );
}

interface ConfigResultProps {
  deviceName: string;
  configs: ResultConfig[];
  /** The key made in this browser, put into the configs; null keeps the placeholder. */
  privateKey: string | null;
}

/** The configs of a new device, one per location: text, download and QR code. */
export function ConfigResult({ deviceName, configs, privateKey }: ConfigResultProps) {
  const t = useTranslations("devices.config");
  return (
    <div className="flex flex-col gap-4">
      <KeyNotice generated={!!privateKey} />
      {configs.length === 0 ? (
        <div className="flex items-start gap-3 rounded-lg border border-dashed border-border px-4 py-5 text-sm" data-testid="no-locations">
          <MapPinOff className="mt-0.5 size-4 shrink-0 text-fg-muted" aria-hidden />
          <div>
            <p className="font-medium text-fg">{t("noLocationsTitle")}</p>
            <p className="mt-0.5 text-fg-muted">{t("noLocationsBody")}</p>
          </div>
        </div>
      ) : configs.length === 1 ? (
        <ConfigPanel deviceName={deviceName} item={configs[0]} privateKey={privateKey} />
      ) : (
        <Tabs defaultValue={String(configs[0].id)}>
          <TabsList aria-label={t("locations")}>
            {configs.map((c) => (
              <TabsTrigger key={c.id} value={String(c.id)}>
                {c.locationName}
              </TabsTrigger>
            ))}
          </TabsList>
          {configs.map((c) => (
            // Inactive panels stay mounted so each location's QR code is ready at once.
            <TabsContent key={c.id} value={String(c.id)} forceMount className="data-[state=inactive]:hidden">
              <ConfigPanel deviceName={deviceName} item={c} privateKey={privateKey} />
            </TabsContent>
          ))}
        </Tabs>
      )}
    </div>
  );
}
