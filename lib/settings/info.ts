import "server-only";
import pkg from "../../package.json";
import { licenseInfo, usageCounts } from "../enterprise/service";
import { getSettings, smtpConfigured } from "./service";

export const VERSION: string = pkg.version;

/** GET /info (docs/api.md). Parts owned by later domains report their "not configured" state. */
export async function getAppInfo() {
  const [usage, s] = await Promise.all([usageCounts(), getSettings()]);
  return {
    version: VERSION,
    network_present: usage.locations > 0,
    smtp_enabled: smtpConfigured(s),
    license_info: await licenseInfo(),
    ldap_info: { enabled: s.ldapEnabled, ad: s.ldapUsesAd },
    external_openid_enabled: false,
  };
}
