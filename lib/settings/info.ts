import "server-only";
import { sql } from "drizzle-orm";
import pkg from "../../package.json";
import { getDb } from "../db";
import { licenseInfo, usageCounts } from "../enterprise/service";
import { getSettings, smtpConfigured } from "./service";

export const VERSION: string = pkg.version;

/** GET /info (docs/api.md). Parts owned by later domains report their "not configured" state. */
export async function getAppInfo() {
  const [usage, s, provider] = await Promise.all([usageCounts(), getSettings(), getDb().execute(sql`select 1 from openid_provider limit 1`)]);
  return {
    version: VERSION,
    network_present: usage.locations > 0,
    smtp_enabled: smtpConfigured(s),
    license_info: await licenseInfo(),
    ldap_info: { enabled: s.ldapEnabled, ad: s.ldapUsesAd },
    external_openid_enabled: provider.rows.length > 0,
  };
}
