import { getPool } from "../db";

/** True when the database answers a trivial query within `timeoutMs`. */
export async function databaseReachable(timeoutMs = 2000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<boolean>((res) => {
      timer = setTimeout(() => res(false), timeoutMs);
    });
    const probe = getPool()
      .query("select 1")
      .then(() => true)
      .catch(() => false);
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
