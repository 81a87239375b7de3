import "server-only";
import type { Server } from "node:http";
import v8 from "node:v8";
import vm from "node:vm";

/** Seconds without HTTP requests after which memory is given back (DEFGUARD_IDLE_GC_SECONDS; 0 turns it off). */
export function idleGcMs(): number {
  const raw = process.env.DEFGUARD_IDLE_GC_SECONDS;
  const n = raw === undefined || raw === "" ? 30 : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n * 1000 : 30_000;
}

/** V8's full collection, exposed at run time (the process is started without flags). */
function exposedGc(): (() => void) | null {
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc") as unknown;
    return typeof gc === "function" ? (gc as () => void) : null;
  } catch {
    return null;
  }
}

/**
 * After a burst of requests V8 keeps the heap it grew to (mostly garbage) until allocation
 * pressure or its own idle heuristics shrink it, which may take minutes. Once the console has
 * had no HTTP request for a while after some, one full collection runs and the freed heap goes
 * back to the system: a console that is idle is small. At most once per idle period; gateways'
 * streams and the periodic jobs do not count as activity (they allocate little).
 * Returns a stop function.
 */
export function startIdleGc(server: Server, idleMs = idleGcMs(), collect: (() => void) | null = exposedGc()): () => void {
  if (idleMs <= 0 || !collect) return () => {};
  const gc = collect;
  let last = Date.now();
  let busy = false;
  server.on("request", () => {
    last = Date.now();
    busy = true;
  });
  const timer = setInterval(() => {
    if (!busy || Date.now() - last < idleMs) return;
    busy = false;
    gc();
  }, Math.min(idleMs, 5000));
  timer.unref();
  return () => clearInterval(timer);
}
