/**
 * Toast queue (docs/ui.md, "Feedback"), free of any UI framework. The React renderer
 * (components/ui/toaster.tsx) subscribes to a store created here.
 *
 * Rules: a new toast's id is the highest id currently held plus one (1 when none is held);
 * a toast disappears on its own after `lifetime` ms (Infinity keeps it until dismissed);
 * `meta.customId` must be non-empty after trimming, and at most one toast per customId is held.
 */
export type ToastType = "info" | "warning" | "success" | "error";

export interface ToastMeta {
  customId: string;
}

/** C is the renderer's type for a custom component (a React component in the browser). */
export interface Toast<C = unknown> {
  id: number;
  type: ToastType;
  message: string;
  subMessage?: string;
  /** Milliseconds until the toast removes itself; Infinity for a toast that waits to be dismissed. */
  lifetime: number;
  component?: C;
  meta?: ToastMeta;
}

export type ToastInput<C = unknown> = Omit<Toast<C>, "id">;

export class InvalidToastError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidToastError";
  }
}

export interface Timers {
  setTimeout: (fn: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
}

export interface ToastStore<C = unknown> {
  /** Adds a toast and returns its id; with a customId already held, returns that toast's id instead. */
  add(input: ToastInput<C>): number;
  remove(id: number): void;
  clear(): void;
  /** The current toasts, oldest first. The array is replaced on every change (safe for snapshots). */
  getToasts(): readonly Toast<C>[];
  subscribe(listener: () => void): () => void;
}

export function nextToastId(toasts: readonly { id: number }[]): number {
  return toasts.reduce((max, t) => Math.max(max, t.id), 0) + 1;
}

function validate(input: ToastInput<unknown>): void {
  if (!(input.lifetime > 0)) throw new InvalidToastError("toast lifetime must be a positive number of milliseconds");
  if (input.meta !== undefined && (typeof input.meta.customId !== "string" || input.meta.customId.trim() === "")) {
    throw new InvalidToastError("toast meta.customId must not be empty");
  }
}

const defaultTimers: Timers = {
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
};

export function createToastStore<C = unknown>(timers: Timers = defaultTimers): ToastStore<C> {
  let toasts: readonly Toast<C>[] = [];
  const expiry = new Map<number, unknown>();
  const listeners = new Set<() => void>();

  const emit = () => listeners.forEach((l) => l());

  function remove(id: number) {
    const handle = expiry.get(id);
    if (handle !== undefined) timers.clearTimeout(handle);
    expiry.delete(id);
    const next = toasts.filter((t) => t.id !== id);
    if (next.length === toasts.length) return;
    toasts = next;
    emit();
  }

  return {
    add(input) {
      validate(input);
      const customId = input.meta?.customId.trim();
      if (customId) {
        const held = toasts.find((t) => t.meta?.customId.trim() === customId);
        if (held) return held.id;
      }
      const toast: Toast<C> = { ...input, id: nextToastId(toasts) };
      toasts = [...toasts, toast];
      if (Number.isFinite(toast.lifetime)) {
        expiry.set(toast.id, timers.setTimeout(() => remove(toast.id), toast.lifetime));
      }
      emit();
      return toast.id;
    },
    remove,
    clear() {
      expiry.forEach((handle) => timers.clearTimeout(handle));
      expiry.clear();
      if (toasts.length === 0) return;
      toasts = [];
      emit();
    },
    getToasts: () => toasts,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
