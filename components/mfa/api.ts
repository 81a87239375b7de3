/**
 * Calls and shapes of the MFA screens (docs/api.md, Auth): the second sign-in step, self-service
 * set-up in My Profile and the set-up forced by the instance policy.
 */
import type { QueryClient } from "@tanstack/react-query";
import { api, ApiBadRequestError } from "@/lib/api/client";
import type { LoginSuccessBody, UserInfo } from "@/lib/api/types";
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/browser";
import { currentUserQuery } from "@/components/auth/use-current-user";

export type MfaMethod = "OneTimePassword" | "Webauthn" | "Email";

/** Message keys under `mfa.methods`, per wire name. */
export const METHOD_KEY = { OneTimePassword: "totp", Email: "email", Webauthn: "webauthn" } as const satisfies Record<
  MfaMethod,
  string
>;

export { MFA_SETUP_PATH } from "./paths";

/** {codes}: recovery codes, only the first time MFA turns on (null otherwise, stripped to undefined). */
export interface CodesBody {
  codes: string[] | null;
}

export interface SecurityKey {
  id: number;
  name: string;
}

interface UserDetailsBody {
  user: UserInfo;
  security_keys: SecurityKey[];
}

export const mfaApi = {
  // The second sign-in step.
  verifyTotp: (code: string) => api.post<LoginSuccessBody>("/auth/totp/verify", { code }),
  sendEmailLoginCode: () => api.get<null>("/auth/email"),
  verifyEmail: (code: string) => api.post<LoginSuccessBody>("/auth/email/verify", { code }),
  // The options go to the browser as received (the null-stripped type does not fit the DOM types).
  webauthnStart: async () =>
    (await api.post<PublicKeyCredentialRequestOptionsJSON>("/auth/webauthn/start")) as unknown as PublicKeyCredentialRequestOptionsJSON,
  webauthnLogin: (assertion: unknown) => api.post<LoginSuccessBody>("/auth/webauthn", assertion),
  recovery: (code: string) => api.post<LoginSuccessBody>("/auth/recovery", { code }),

  // Self-service.
  totpInit: () => api.post<{ secret: string; uri: string }>("/auth/totp/init"),
  totpEnable: (code: string) => api.post<CodesBody>("/auth/totp", { code }),
  totpDisable: () => api.delete<null>("/auth/totp"),
  emailInit: () => api.post<null>("/auth/email/init"),
  emailEnable: (code: string) => api.post<CodesBody>("/auth/email", { code }),
  emailDisable: () => api.delete<null>("/auth/email"),
  webauthnInit: async () =>
    (await api.post<PublicKeyCredentialCreationOptionsJSON>("/auth/webauthn/init")) as unknown as PublicKeyCredentialCreationOptionsJSON,
  webauthnFinish: (name: string, credential: object) => api.post<CodesBody>("/auth/webauthn/finish", { ...credential, name }),
  setDefault: (method: MfaMethod) => api.put<CodesBody>("/auth/mfa", { method }),
  disableMfa: () => api.delete<null>("/auth/mfa"),

  securityKeys: async (username: string) =>
    (await api.get<UserDetailsBody>(`/user/${encodeURIComponent(username)}`)).security_keys,
  renameKey: (username: string, id: number, name: string) =>
    api.post<null>(`/user/${encodeURIComponent(username)}/security_key/${id}/rename`, { name }),
  deleteKey: (username: string, id: number) =>
    api.delete<null>(`/user/${encodeURIComponent(username)}/security_key/${id}`),
};

export const securityKeysKey = (username: string) => ["mfa", "security-keys", username] as const;

/**
 * 403 {code: "mfa_setup_required"}: the instance requires MFA and this user has none yet. The
 * client keeps only `msg`, so the server's fixed wording identifies it.
 */
export function isMfaSetupRequired(err: unknown): boolean {
  return err instanceof ApiBadRequestError && err.status === 403 && err.code === "mfa_setup_required";
}

/** After any MFA change: the current user (mfa_enabled, mfa_method, ...) and this user's keys. */
export function refreshMfaData(client: QueryClient, username: string): Promise<unknown> {
  return Promise.all([
    client.invalidateQueries({ queryKey: currentUserQuery.queryKey }),
    client.invalidateQueries({ queryKey: securityKeysKey(username) }),
    // Whatever else holds this user (profile or admin views keyed by the username).
    client.invalidateQueries({
      predicate: (q) => q.queryKey[0] !== "mfa" && q.queryKey.some((part) => part === username),
    }),
  ]);
}
