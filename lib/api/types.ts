/**
 * Shapes of /api/v1 answers. `...Body` is the JSON as the server sends it (the type parameter
 * of the client's calls); the plain name is what the browser holds after nulls are stripped.
 * They derive, type-only, from the server's own functions, so the two sides cannot drift apart.
 */
import type { listUsers, UserInfo as ServerUserInfo } from "@/lib/users/service";
import type { getAppInfo } from "@/lib/settings/info";
import type { getEssentials } from "@/lib/settings/service";
import type { LoginResult } from "@/lib/auth/service";
import type { Stripped } from "./client";

export type UserInfoBody = ServerUserInfo;
export type UserInfo = Stripped<UserInfoBody>;

/** GET /user?page=N: one page of users with the pagination summary. */
export type UserPageBody = Extract<Awaited<ReturnType<typeof listUsers>>, { pagination: unknown }>;

export type AppInfoBody = Awaited<ReturnType<typeof getAppInfo>>;
export type AppInfo = Stripped<AppInfoBody>;

export type EssentialsBody = Awaited<ReturnType<typeof getEssentials>>;
export type Essentials = Stripped<EssentialsBody>;

/** POST /auth, 200: signed in; `url` is where to continue (e.g. a pending OpenID authorization). */
export type LoginSuccessBody = { user: ServerUserInfo; url: string | null };
export type LoginSuccess = Stripped<LoginSuccessBody>;

/** POST /auth, 201: a second factor is required. */
export type MfaRequiredBody = Extract<LoginResult, { kind: "mfa_required" }>["mfa"];
export type MfaRequired = Stripped<MfaRequiredBody>;
