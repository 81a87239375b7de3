import { eq } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { settings } from "../db/schema";

export type Settings = typeof settings.$inferSelect;

export const DEFAULT_MAIN_LOGO = "/brand/logo-main.svg";
export const DEFAULT_NAV_LOGO = "/brand/logo-nav.svg";

export async function getSettings(tx: Tx = getDb()): Promise<Settings> {
  const [row] = await tx.select().from(settings).where(eq(settings.id, 1)).limit(1);
  if (row) return row;
  const [created] = await tx.insert(settings).values({ id: 1 }).onConflictDoNothing().returning();
  return created ?? (await tx.select().from(settings).where(eq(settings.id, 1)))[0];
}

/** GET /settings_essentials (API.md): public, empty logo URLs replaced by the defaults. */
export async function getEssentials() {
  const s = await getSettings();
  return {
    instance_name: s.instanceName,
    main_logo_url: s.mainLogoUrl || DEFAULT_MAIN_LOGO,
    nav_logo_url: s.navLogoUrl || DEFAULT_NAV_LOGO,
    openid_enabled: s.openidEnabled,
    wireguard_enabled: s.wireguardEnabled,
    webhooks_enabled: s.webhooksEnabled,
    worker_enabled: s.workerEnabled,
  };
}
