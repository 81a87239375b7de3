/** The module catalogue of Settings → Global lives with the session policy (lib/auth/modules.ts). */
export * from "../auth/modules";
