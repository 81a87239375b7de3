import "server-only";
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { format } from "node:util";

/**
 * Log output. By default lines are plain text as written. With DEFGUARD_LOG_FORMAT=json every
 * console line becomes one JSON object: `{"time","level","msg"}` plus `component` (from a
 * leading "[name]" tag) and `request_id` when the line is written while serving a request.
 */
interface RequestContext {
  requestId: string;
}

// Kept on globalThis: server.ts and the route bundles Next.js compiles are separate module graphs.
const g = globalThis as unknown as { __defguardRequestContext?: AsyncLocalStorage<RequestContext>; __defguardJsonLogs?: boolean };
const context = (g.__defguardRequestContext ??= new AsyncLocalStorage<RequestContext>());

/** Run `fn` as part of a request: log lines written meanwhile carry its id. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return context.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return context.getStore()?.requestId;
}

/** A request id from a trusted proxy's X-Request-Id (letters, digits, `.-_:`, up to 128), else a new one. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const v = Array.isArray(header) ? header[0] : header;
  return v && /^[A-Za-z0-9._:-]{1,128}$/.test(v) ? v : randomUUID();
}

type Level = "debug" | "info" | "warn" | "error";

/** One JSON log line (without the newline) for console arguments. */
export function jsonLine(level: Level, args: unknown[], now = new Date(), requestId = currentRequestId()): string {
  let msg = format(...args);
  let component: string | undefined;
  const m = /^\[([\w.-]+)\]\s?/.exec(msg);
  if (m) {
    component = m[1];
    msg = msg.slice(m[0].length);
  }
  const line: Record<string, string> = { time: now.toISOString(), level, msg };
  if (component) line.component = component;
  if (requestId) line.request_id = requestId;
  return JSON.stringify(line);
}

export function logFormat(): "json" | "text" {
  return (process.env.DEFGUARD_LOG_FORMAT || "text").toLowerCase() === "json" ? "json" : "text";
}

/** Route console output through JSON lines when DEFGUARD_LOG_FORMAT=json (idempotent). */
export function installLogFormat(): void {
  if (logFormat() !== "json" || g.__defguardJsonLogs) return;
  g.__defguardJsonLogs = true;
  const out = (level: Level, stream: NodeJS.WriteStream) => (...args: unknown[]) => {
    stream.write(jsonLine(level, args) + "\n");
  };
  console.log = out("info", process.stdout);
  console.info = out("info", process.stdout);
  console.debug = out("debug", process.stdout);
  console.warn = out("warn", process.stderr);
  console.error = out("error", process.stderr);
}

/** How many recent log lines the process keeps for the support bundle (GET /support/logs). */
export const LOG_RING_SIZE = 1000;

interface LogRing {
  lines: string[];
  next: number;
  installed: boolean;
}

const ring = (): LogRing => ((g as { __defguardLogRing?: LogRing }).__defguardLogRing ??= { lines: [], next: 0, installed: false });

/** Keep one line (its time, level and text) in the ring of the last LOG_RING_SIZE lines. */
export function rememberLogLine(level: Level, args: unknown[], now = new Date()): void {
  const r = ring();
  const line = `${now.toISOString()} ${level.toUpperCase()} ${format(...args)}`.slice(0, 8192);
  if (r.lines.length < LOG_RING_SIZE) r.lines.push(line);
  else r.lines[r.next] = line;
  r.next = (r.next + 1) % LOG_RING_SIZE;
}

/** The kept log lines, oldest first. */
export function recentLogLines(): string[] {
  const r = ring();
  return r.lines.length < LOG_RING_SIZE ? [...r.lines] : [...r.lines.slice(r.next), ...r.lines.slice(0, r.next)];
}

/** Forget the kept lines (tests). */
export function clearLogLines(): void {
  const r = ring();
  r.lines = [];
  r.next = 0;
}

/**
 * Copy every console line into the ring as well (idempotent; after installLogFormat). The
 * support bundle reads it, so the console needs no log file for that.
 */
export function installLogCapture(): void {
  const r = ring();
  if (r.installed) return;
  r.installed = true;
  const wrap = (level: Level, original: (...args: unknown[]) => void) => (...args: unknown[]) => {
    try {
      rememberLogLine(level, args);
    } catch {
      // never let keeping a copy break logging
    }
    original(...args);
  };
  console.log = wrap("info", console.log.bind(console));
  console.info = wrap("info", console.info.bind(console));
  console.debug = wrap("debug", console.debug.bind(console));
  console.warn = wrap("warn", console.warn.bind(console));
  console.error = wrap("error", console.error.bind(console));
}
