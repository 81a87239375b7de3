"use client";

import { useState, type ReactNode } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import { ArrowRight, Check, CheckCircle2, FileUp, Network, PencilRuler, Router, ShieldCheck, Users } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardBody } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { PageHeader } from "@/components/ui/page-header";
import type { ImportedPeer, Location } from "../api";
import { LocationForm } from "../location-form";
import { ImportStep } from "./import-step";
import { MapDevicesStep } from "./map-devices-step";

type Mode = "manual" | "import";
type Step = "welcome" | "choose" | "manual" | "import" | "map" | "done";

interface Done {
  location: Location;
  /** Imported peers mapped to users (import only). */
  mapped?: number;
}

function Stepper({ steps, current, label }: { steps: { key: string; label: string }[]; current: number; label: string }) {
  return (
    <ol className="mb-6 flex flex-wrap items-center gap-x-2 gap-y-2 text-xs" aria-label={label}>
      {steps.map((s, i) => {
        const state = i < current ? "done" : i === current ? "current" : "next";
        return (
          <li key={s.key} className="flex items-center gap-2" aria-current={state === "current" ? "step" : undefined}>
            <span
              className={cn(
                "flex size-6 items-center justify-center rounded-full font-medium tabular-nums",
                state === "done" && "bg-accent text-accent-fg",
                state === "current" && "bg-accent-subtle text-accent ring-1 ring-inset ring-accent",
                state === "next" && "bg-subtle text-fg-subtle ring-1 ring-inset ring-border",
              )}
            >
              {state === "done" ? <Check className="size-3.5" aria-hidden /> : i + 1}
            </span>
            <span className={cn("font-medium", state === "next" ? "text-fg-subtle" : "text-fg", state !== "current" && "max-sm:sr-only")}>
              {s.label}
            </span>
            {i < steps.length - 1 && <span className="h-px w-6 bg-border" aria-hidden />}
          </li>
        );
      })}
    </ol>
  );
}

function ChoiceCard({
  selected,
  onSelect,
  icon,
  title,
  description,
  testId,
}: {
  selected: boolean;
  onSelect: () => void;
  icon: ReactNode;
  title: string;
  description: string;
  testId: string;
}) {
  return (
    <button
      type="button"
      role="radio"
      aria-checked={selected}
      onClick={onSelect}
      data-testid={testId}
      className={cn(
        "flex flex-col items-start gap-2 rounded-lg border p-4 text-left transition-colors focus-visible:outline-2 focus-visible:outline-offset-2",
        selected ? "border-accent bg-accent-subtle/60 ring-1 ring-accent" : "border-border bg-surface hover:bg-hover",
      )}
    >
      <span className={cn("flex size-9 items-center justify-center rounded-md", selected ? "bg-accent text-accent-fg" : "bg-subtle text-fg-muted ring-1 ring-inset ring-border")}>
        {icon}
      </span>
      <span className="text-sm font-semibold text-fg">{title}</span>
      <span className="text-xs text-fg-muted">{description}</span>
    </button>
  );
}

function Point({ icon, title, children }: { icon: ReactNode; title: string; children: ReactNode }) {
  return (
    <li className="flex gap-3">
      <span className="mt-0.5 flex size-8 shrink-0 items-center justify-center rounded-md bg-subtle text-fg-muted ring-1 ring-inset ring-border">{icon}</span>
      <span>
        <span className="block text-sm font-medium text-fg">{title}</span>
        <span className="block text-sm text-fg-muted">{children}</span>
      </span>
    </li>
  );
}

/** Location wizard: welcome → manual or import → (map imported devices) → done. */
export function LocationWizard() {
  const t = useTranslations("wizard");
  const [step, setStep] = useState<Step>("welcome");
  const [mode, setMode] = useState<Mode>("manual");
  const [imported, setImported] = useState<{ location: Location; peers: ImportedPeer[] } | null>(null);
  const [done, setDone] = useState<Done | null>(null);

  const steps =
    mode === "import"
      ? [
          { key: "welcome", label: t("steps.welcome") },
          { key: "choose", label: t("steps.choose") },
          { key: "import", label: t("steps.import") },
          { key: "map", label: t("steps.map") },
          { key: "done", label: t("steps.done") },
        ]
      : [
          { key: "welcome", label: t("steps.welcome") },
          { key: "choose", label: t("steps.choose") },
          { key: "manual", label: t("steps.manual") },
          { key: "done", label: t("steps.done") },
        ];
  const current = Math.max(0, steps.findIndex((s) => s.key === step));

  return (
    <>
      <PageHeader
        title={t("title")}
        description={t("description")}
        action={
          step !== "done" && (
            <Button variant="ghost" asChild>
              <Link href="/locations">{t("cancel")}</Link>
            </Button>
          )
        }
      />
      <Stepper steps={steps} current={current} label={t("steps.label")} />

      {step === "welcome" && (
        <Card className="max-w-3xl" data-testid="wizard-welcome">
          <CardBody className="flex flex-col gap-6 p-6">
            <div className="flex items-start gap-4">
              <span className="flex size-11 shrink-0 items-center justify-center rounded-lg bg-accent-subtle text-accent">
                <Network className="size-5" aria-hidden />
              </span>
              <div>
                <h2 className="text-lg font-semibold text-fg">{t("welcome.title")}</h2>
                <p className="mt-1 text-sm text-fg-muted">{t("welcome.body")}</p>
              </div>
            </div>
            <ul className="grid gap-4 sm:grid-cols-3">
              <Point icon={<Router className="size-4" aria-hidden />} title={t("welcome.gatewayTitle")}>
                {t("welcome.gateway")}
              </Point>
              <Point icon={<Users className="size-4" aria-hidden />} title={t("welcome.accessTitle")}>
                {t("welcome.access")}
              </Point>
              <Point icon={<ShieldCheck className="size-4" aria-hidden />} title={t("welcome.keysTitle")}>
                {t("welcome.keys")}
              </Point>
            </ul>
            <div className="flex justify-end">
              <Button onClick={() => setStep("choose")} data-testid="wizard-start">
                {t("welcome.start")}
                <ArrowRight aria-hidden />
              </Button>
            </div>
          </CardBody>
        </Card>
      )}

      {step === "choose" && (
        <div className="flex max-w-3xl flex-col gap-4" data-testid="wizard-choose">
          <div role="radiogroup" aria-label={t("choose.label")} className="grid gap-3 sm:grid-cols-2">
            <ChoiceCard
              selected={mode === "manual"}
              onSelect={() => setMode("manual")}
              icon={<PencilRuler className="size-4" aria-hidden />}
              title={t("choose.manual")}
              description={t("choose.manualHint")}
              testId="wizard-manual"
            />
            <ChoiceCard
              selected={mode === "import"}
              onSelect={() => setMode("import")}
              icon={<FileUp className="size-4" aria-hidden />}
              title={t("choose.import")}
              description={t("choose.importHint")}
              testId="wizard-import"
            />
          </div>
          <div className="flex justify-between gap-2">
            <Button variant="secondary" onClick={() => setStep("welcome")}>
              {t("back")}
            </Button>
            <Button onClick={() => setStep(mode)} data-testid="wizard-next">
              {t("next")}
              <ArrowRight aria-hidden />
            </Button>
          </div>
        </div>
      )}

      {step === "manual" && (
        <LocationForm
          submitLabel={t("manual.submit")}
          onSaved={(location) => {
            setDone({ location });
            setStep("done");
          }}
          secondaryAction={
            <Button variant="secondary" onClick={() => setStep("choose")}>
              {t("back")}
            </Button>
          }
        />
      )}

      {step === "import" && (
        <ImportStep
          onBack={() => setStep("choose")}
          onImported={(r) => {
            if (r.devices.length === 0) {
              setDone({ location: r.network, mapped: 0 });
              setStep("done");
            } else {
              setImported({ location: r.network, peers: r.devices });
              setStep("map");
            }
          }}
        />
      )}

      {step === "map" && imported && (
        <MapDevicesStep
          location={imported.location}
          peers={imported.peers}
          onDone={(count) => {
            setDone({ location: imported.location, mapped: count });
            setStep("done");
          }}
        />
      )}

      {step === "done" && done && (
        <Card className="max-w-3xl" data-testid="wizard-done">
          <CardBody className="flex flex-col gap-5 p-6">
            <div className="flex items-start gap-4">
              <span className="flex size-11 shrink-0 items-center justify-center rounded-lg bg-success-subtle text-success">
                <CheckCircle2 className="size-5" aria-hidden />
              </span>
              <div className="min-w-0">
                <h2 className="text-lg font-semibold text-fg">{t("done.title", { name: done.location.name })}</h2>
                <p className="mt-1 text-sm text-fg-muted">
                  {done.mapped !== undefined ? t("done.importBody", { count: done.mapped }) : t("done.manualBody")}
                </p>
              </div>
            </div>
            <dl className="grid gap-x-6 gap-y-3 rounded-lg border border-border bg-subtle p-4 text-sm sm:grid-cols-3">
              <div className="min-w-0">
                <dt className="text-xs text-fg-muted">{t("done.address")}</dt>
                <dd className="truncate font-mono text-xs text-fg">{done.location.address.join(", ")}</dd>
              </div>
              <div className="min-w-0">
                <dt className="text-xs text-fg-muted">{t("done.endpoint")}</dt>
                <dd className="truncate font-mono text-xs text-fg">
                  {done.location.endpoint}:{done.location.port}
                </dd>
              </div>
              <div className="min-w-0">
                <dt className="text-xs text-fg-muted">{t("done.publicKey")}</dt>
                <dd className="truncate font-mono text-xs text-fg" title={done.location.pubkey}>
                  {done.location.pubkey}
                </dd>
              </div>
            </dl>
            <p className="text-sm text-fg-muted">{t("done.next")}</p>
            <div className="flex flex-wrap justify-end gap-2">
              <Button variant="secondary" asChild>
                <Link href={`/locations/${done.location.id}/edit`}>{t("done.edit")}</Link>
              </Button>
              <Button variant="secondary" asChild>
                <Link href="/devices/add">{t("done.addDevice")}</Link>
              </Button>
              <Button asChild>
                <Link href="/locations" data-testid="wizard-finish">
                  {t("done.toList")}
                </Link>
              </Button>
            </div>
          </CardBody>
        </Card>
      )}
    </>
  );
}
