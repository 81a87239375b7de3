/** Branding used until the essentials are known (the server fills in the same logo defaults). */
export const FALLBACK_INSTANCE_NAME = "Defguard";
export const DEFAULT_MAIN_LOGO = "/svg/logo-defguard-white.svg";
export const DEFAULT_NAV_LOGO = "/svg/defguard-nav-logo.svg";
