import { boolean, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** The single settings row (id = 1). Later domains add their columns here. */
export const settings = pgTable("settings", {
  id: integer("id").primaryKey().default(1),
  instanceName: text("instance_name").notNull().default("Defguard"),
  mainLogoUrl: text("main_logo_url").notNull().default(""),
  navLogoUrl: text("nav_logo_url").notNull().default(""),
  wireguardEnabled: boolean("wireguard_enabled").notNull().default(true),
  webhooksEnabled: boolean("webhooks_enabled").notNull().default(true),
  workerEnabled: boolean("worker_enabled").notNull().default(true),
  openidEnabled: boolean("openid_enabled").notNull().default(true),
  /** Set when first-start bootstrap (admin group + admin user) has run. */
  initializedAt: timestamp("initialized_at", { withTimezone: true }),
});
