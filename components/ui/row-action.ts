"use client";

import { toast } from "./toaster";

export interface RowActionRun {
  /** The call. */
  call: () => Promise<unknown>;
  /** The success toast. */
  success: string;
  /** The error toast's title; the server's message goes under it. */
  failure: string;
  errorText: (err: unknown) => string;
  /** Runs after success or failure (refetch the list); the action stays in progress until it settles. */
  settle?: () => unknown;
}

/**
 * The run of a list row's confirmed action (delete, revoke): a toast either way, the list
 * refetched either way, and a failure thrown on so the list's confirm dialog stays open for
 * another try.
 */
export async function runRowAction({ call, success, failure, errorText, settle }: RowActionRun): Promise<void> {
  try {
    await call();
    toast.success(success);
  } catch (err) {
    toast.error(failure, { subMessage: errorText(err) });
    throw err;
  } finally {
    await settle?.();
  }
}
