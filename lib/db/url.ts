import "server-only";

/** The database URL the process uses (server start-up sets it, for the embedded server too). */
export function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set (server start-up provides it)");
  return url;
}
