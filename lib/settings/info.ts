import pkg from "../../package.json";
import { licenseInfo } from "../enterprise/service";

export const VERSION: string = pkg.version;

/** GET /info (API.md). Parts owned by later domains report their "not configured" state. */
export async function getAppInfo() {
  return {
    version: VERSION,
    network_present: false,
    smtp_enabled: false,
    license_info: await licenseInfo(),
    ldap_info: { enabled: false, ad: false },
    external_openid_enabled: false,
  };
}
