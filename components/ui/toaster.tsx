"use client";

import { useSyncExternalStore, type ComponentType } from "react";
import { AlertTriangle, CheckCircle2, Info, X, XCircle, type LucideIcon } from "lucide-react";
import { useTranslations } from "next-intl";
import { createToastStore, type Toast, type ToastInput, type ToastType } from "@/components/toast/store";
import { cn } from "./cn";

/** A toast may render its own body (e.g. the update notice with a "more" action). */
export type ToastComponent = ComponentType<{ toast: AppToast; dismiss: () => void }>;
export type AppToast = Toast<ToastComponent>;

export const toastStore = createToastStore<ToastComponent>();

const DEFAULT_LIFETIME: Record<ToastType, number> = { info: 5000, success: 4000, warning: 8000, error: 8000 };

type ToastOptions = Partial<Omit<ToastInput<ToastComponent>, "type" | "message">>;

function show(type: ToastType, message: string, opts: ToastOptions = {}): number {
  return toastStore.add({ type, message, lifetime: DEFAULT_LIFETIME[type], ...opts });
}

/** Every action that changes something ends in one of these (docs/ui.md). */
export const toast = {
  info: (message: string, opts?: ToastOptions) => show("info", message, opts),
  success: (message: string, opts?: ToastOptions) => show("success", message, opts),
  warning: (message: string, opts?: ToastOptions) => show("warning", message, opts),
  error: (message: string, opts?: ToastOptions) => show("error", message, opts),
  dismiss: (id: number) => toastStore.remove(id),
};

const STYLE: Record<ToastType, { icon: LucideIcon; className: string }> = {
  info: { icon: Info, className: "text-info" },
  success: { icon: CheckCircle2, className: "text-success" },
  warning: { icon: AlertTriangle, className: "text-warning" },
  error: { icon: XCircle, className: "text-error" },
};

const noToasts: readonly AppToast[] = [];

function ToastItem({ toast: item }: { toast: AppToast }) {
  const t = useTranslations("common");
  const dismiss = () => toastStore.remove(item.id);
  const { icon: Icon, className } = STYLE[item.type];
  const Custom = item.component;
  return (
    <li
      data-testid="toast"
      data-type={item.type}
      role={item.type === "error" ? "alert" : "status"}
      className="pointer-events-auto flex w-full items-start gap-3 rounded-lg border border-border bg-surface p-3 pr-2 shadow-popover animate-toast-in"
    >
      <Icon className={cn("mt-0.5 size-4 shrink-0", className)} aria-hidden />
      <div className="min-w-0 flex-1 text-sm">
        {Custom ? (
          <Custom toast={item} dismiss={dismiss} />
        ) : (
          <>
            <p className="font-medium text-fg">{item.message}</p>
            {item.subMessage && <p className="mt-0.5 break-words text-fg-muted">{item.subMessage}</p>}
          </>
        )}
      </div>
      <button
        type="button"
        onClick={dismiss}
        aria-label={t("dismiss")}
        className="rounded-sm p-1 text-fg-subtle hover:bg-hover hover:text-fg focus-visible:outline-2"
      >
        <X className="size-3.5" aria-hidden />
      </button>
    </li>
  );
}

/** Renders the toast queue at the bottom right (bottom, full width, on phones). */
export function Toaster() {
  const toasts = useSyncExternalStore(toastStore.subscribe, toastStore.getToasts, () => noToasts);
  const t = useTranslations("common");
  return (
    <section aria-label={t("notifications")} className="pointer-events-none fixed inset-x-0 bottom-0 z-[60] flex justify-end p-4">
      <ol className="flex w-full flex-col gap-2 md:w-96">
        {toasts.map((item) => (
          <ToastItem key={item.id} toast={item} />
        ))}
      </ol>
    </section>
  );
}
