"use client";

import { useId, type ReactNode } from "react";
import { KeyRound, Sparkles } from "lucide-react";
import { useTranslations } from "next-intl";
import { cn } from "@/components/ui/cn";
import type { KeyMethod } from "./schema";

interface KeyMethodFieldProps {
  value: KeyMethod;
  onChange: (value: KeyMethod) => void;
  disabled?: boolean;
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
  value: KeyMethod;
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

/** "Generate a key pair" (in this browser) or "Use my own public key". */
export function KeyMethodField({ value, onChange, disabled }: KeyMethodFieldProps) {
  const t = useTranslations("devices.keyMethod");
  const name = useId();
  return (
    <fieldset className="flex flex-col gap-1.5">
      <legend className="mb-1.5 text-sm font-medium text-fg">{t("label")}</legend>
      <div className="grid gap-2 sm:grid-cols-2">
        <Option
          name={name}
          value="generate"
          checked={value === "generate"}
          onSelect={() => onChange("generate")}
          icon={<Sparkles className="size-4 text-accent" aria-hidden />}
          title={t("generate")}
          description={t("generateHint")}
          disabled={disabled}
        />
        <Option
          name={name}
          value="own"
          checked={value === "own"}
          onSelect={() => onChange("own")}
          icon={<KeyRound className="size-4 text-fg-muted" aria-hidden />}
          title={t("own")}
          description={t("ownHint")}
          disabled={disabled}
        />
      </div>
    </fieldset>
  );
}
