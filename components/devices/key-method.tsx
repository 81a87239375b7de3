"use client";

import { useId, type ReactNode } from "react";
import { KeyRound, Sparkles, Terminal } from "lucide-react";
import { useTranslations } from "next-intl";
import { cn } from "@/components/ui/cn";
import type { KeyMethod } from "@/lib/devices/schema";

/** Network devices may also leave the key to the defguard CLI on the device. */
export type SetupMethod = KeyMethod;

interface KeyMethodFieldProps<M extends SetupMethod> {
  value: M;
  onChange: (value: M) => void;
  disabled?: boolean;
  /** Offer "Configure with the defguard CLI" (network devices). */
  withCli?: boolean;
}

function Option({
  name,
  value,
  checked,
  onSelect,
  icon,
  title,
  description,
  disabled,
}: {
  name: string;
  value: SetupMethod;
  checked: boolean;
  onSelect: () => void;
  icon: ReactNode;
  title: string;
  description: string;
  disabled?: boolean;
}) {
  return (
    <label
      className={cn(
        "flex cursor-pointer items-start gap-3 rounded-lg border p-3 transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-offset-2 has-[:focus-visible]:outline-ring",
        checked ? "border-accent bg-accent-subtle/60" : "border-border hover:bg-hover",
        disabled && "cursor-not-allowed opacity-60",
      )}
    >
      <input
        type="radio"
        name={name}
        value={value}
        checked={checked}
        onChange={onSelect}
        disabled={disabled}
        data-testid={`key-method-${value}`}
        className="mt-0.5 size-4 shrink-0 accent-[var(--accent)]"
      />
      <span className="min-w-0">
        <span className="flex items-center gap-1.5 text-sm font-medium text-fg">
          {icon}
          {title}
        </span>
        <span className="mt-0.5 block text-xs text-fg-muted">{description}</span>
      </span>
    </label>
  );
}

/** "Generate a key pair" (in this browser), "Use my own public key" or, optionally, the defguard CLI. */
export function KeyMethodField<M extends SetupMethod>({ value, onChange, disabled, withCli }: KeyMethodFieldProps<M>) {
  const t = useTranslations("devices.keyMethod");
  const name = useId();
  const select = (m: SetupMethod) => onChange(m as M);
  return (
    <fieldset className="flex flex-col gap-1.5">
      <legend className="mb-1.5 text-sm font-medium text-fg">{t("label")}</legend>
      <div className={cn("grid gap-2", !withCli && "sm:grid-cols-2")}>
        <Option
          name={name}
          value="generate"
          checked={value === "generate"}
          onSelect={() => select("generate")}
          icon={<Sparkles className="size-4 text-accent" aria-hidden />}
          title={t("generate")}
          description={t("generateHint")}
          disabled={disabled}
        />
        <Option
          name={name}
          value="own"
          checked={value === "own"}
          onSelect={() => select("own")}
          icon={<KeyRound className="size-4 text-fg-muted" aria-hidden />}
          title={t("own")}
          description={t("ownHint")}
          disabled={disabled}
        />
        {withCli && (
          <Option
            name={name}
            value="cli"
            checked={value === "cli"}
            onSelect={() => select("cli")}
            icon={<Terminal className="size-4 text-fg-muted" aria-hidden />}
            title={t("cli")}
            description={t("cliHint")}
            disabled={disabled}
          />
        )}
      </div>
    </fieldset>
  );
}
