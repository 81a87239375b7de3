import "server-only";
import { VERSION } from "../settings/info";

/** GET /updates answer (defguard's shape). */
export interface UpdateInfo {
  version: string;
  critical: boolean;
  /** Release notes in Markdown. */
  notes: string;
  release_notes_url: string;
}

/** How long a feed answer (or a failure) is kept before the feed is read again. */
export const UPDATE_CACHE_MS = 24 * 3600_000;
const FAILURE_CACHE_MS = 10 * 60_000;
/** The feed never holds a request longer than this. */
export const UPDATE_TIMEOUT_MS = 3000;

const g = globalThis as unknown as { __defguardUpdate?: { url: string; until: number; value: UpdateInfo | null } };

/** -1, 0, 1 comparing dotted versions numerically (a leading v and a -suffix ignored). */
export function compareVersions(a: string, b: string): number {
  const parts = (v: string) => v.trim().replace(/^v/i, "").split(/[-+]/)[0].split(".").map((x) => Number.parseInt(x, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d) return d < 0 ? -1 : 1;
  }
  return 0;
}

/**
 * Read the feed: a JSON object `{version, critical?, notes?, release_notes_url?}` describing the
 * newest release. Throws with one sentence saying what went wrong.
 */
export async function readFeed(url: string, timeoutMs = UPDATE_TIMEOUT_MS): Promise<UpdateInfo> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), headers: { accept: "application/json" }, redirect: "follow" });
  } catch (err) {
    const reason = err instanceof Error && err.name === "TimeoutError" ? `no answer within ${timeoutMs / 1000} s` : err instanceof Error ? ((err.cause as Error | undefined)?.message ?? err.message) : String(err);
    throw new Error(`update feed ${url} unreachable: ${reason}`);
  }
  if (!res.ok) throw new Error(`update feed ${url} answered HTTP ${res.status}`);
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw new Error(`update feed ${url} did not answer JSON`);
  }
  const o = (body ?? {}) as Record<string, unknown>;
  if (typeof o.version !== "string" || !/^v?\d+(\.\d+)*/.test(o.version)) throw new Error(`update feed ${url} gave no version`);
  return {
    version: o.version.replace(/^v/i, ""),
    critical: o.critical === true,
    notes: typeof o.notes === "string" ? o.notes : "",
    release_notes_url: typeof o.release_notes_url === "string" && /^https?:\/\//.test(o.release_notes_url) ? o.release_notes_url : "",
  };
}

/**
 * GET /updates: the newest release when it is newer than this console, else null. Off (null at
 * once, no network) without DEFGUARD_UPDATE_URL. The feed's answer is cached for a day per
 * process; a failing feed is logged once and asked again after ten minutes, and the answer is
 * then null (clients poll this route and must never see an error).
 */
export async function availableUpdate(now = Date.now()): Promise<UpdateInfo | null> {
  const url = process.env.DEFGUARD_UPDATE_URL?.trim();
  if (!url) return null;
  const cached = g.__defguardUpdate;
  if (cached && cached.url === url && cached.until > now) return cached.value;
  let value: UpdateInfo | null = null;
  let ttl = UPDATE_CACHE_MS;
  try {
    const feed = await readFeed(url);
    value = compareVersions(feed.version, VERSION) > 0 ? feed : null;
  } catch (err) {
    console.warn(`[updates] ${(err as Error).message}; asking again in ${FAILURE_CACHE_MS / 60_000} minutes`);
    ttl = FAILURE_CACHE_MS;
  }
  g.__defguardUpdate = { url, until: now + ttl, value };
  return value;
}

/** Forget the cached feed answer (tests). */
export function resetUpdateCache(): void {
  g.__defguardUpdate = undefined;
}
