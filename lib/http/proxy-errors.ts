import "server-only";
import { AppError } from "../errors";
import { errorResponse } from "./route";

/**
 * Endpoints that stand in for defguard's proxy (enrolment): clients such as `dg` read an error's
 * text from `error`, this API from `msg`; such answers carry both.
 */
export async function withProxyErrors(fn: () => Promise<Response>): Promise<Response> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) return errorResponse(err.status, err.msg, { error: err.msg, ...(err.field ? { field: err.field } : {}) });
    throw err;
  }
}
